/**
 * The SQLite read of an allowed set (what it is: ../allowed-set.ts): ready chunks of the active
 * fingerprint whose messages are visible (live or compacted) and whose sessions are visible and
 * belong to the caller's project — or, for a caller without a project, to its own compression
 * history (NULL is not a shared project), joined to `sessions.project_id` at read time, read per
 * message role into its own buffer, inside one read transaction, each role's rows in (message id,
 * chunk id) order: the tie order of the exact search (../exact-search.ts `compareRanked`).
 */
import type { RecallDatabase } from '@recall/schema';
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import { orderSegment, type AllowedDates, type AllowedSegment, type AllowedSet, type AllowedSetSource } from '../allowed-set.js';

const FILTER = `
  from semantic_chunks c
  join messages m on m.id = c.message_id
  join sessions s on s.id = m.session_id
  where c.fingerprint_id = @fp and c.status = 'ready' and c.vector is not null
    and s.hidden = 0 and m.visibility in ('live', 'compacted')`;

function scopeClause(scope: { projectId: string } | { sessionIds: readonly string[] }, dates: AllowedDates | undefined): { sql: string; params: Record<string, unknown> } {
  const base: { sql: string; params: Record<string, unknown> } =
    'projectId' in scope
      ? { sql: ' and s.project_id = @project', params: { project: scope.projectId } }
      : { sql: ' and s.project_id is null and s.id in (select value from json_each(@sessions))', params: { sessions: JSON.stringify(scope.sessionIds) } };
  if (dates?.since !== undefined && Number.isFinite(dates.since)) {
    base.sql += ' and m.created_at >= @since';
    base.params['since'] = Math.floor(dates.since);
  }
  if (dates?.until !== undefined && Number.isFinite(dates.until)) {
    base.sql += ' and m.created_at < @until';
    base.params['until'] = Math.floor(dates.until);
  }
  return base;
}

/**
 * Reads the allowed set of one project (or one list of own-history sessions) for one fingerprint,
 * inside one read transaction so counts and rows come from the same snapshot. `dates` narrows it to
 * messages created in that range (a dated query; such sets are never cached).
 */
export function loadAllowedSet(db: RecallDatabase, where: { projectId: string } | { sessionIds: readonly string[] }, fingerprintId: number, dims: number, dates?: AllowedDates): AllowedSet {
  const scope = scopeClause(where, dates);
  const params = { fp: fingerprintId, ...scope.params };
  const read = db.raw.transaction((): AllowedSet => {
    const counts = new Map<string, number>(
      (db.raw.prepare(`select m.role as role, count(*) as n ${FILTER}${scope.sql} group by m.role`).all(params) as Array<{ role: string; n: number }>).map((r) => [r.role, r.n]),
    );
    const sessions: string[] = [];
    const sessionIndex = new Map<string, number>();
    const segments: AllowedSegment[] = [];
    let skipped = 0;
    let rows = 0;
    let bytes = 0;
    const stmt = db.raw.prepare(
      `select c.id as chunk_id, c.message_id, s.id as session_id, c.start, c."end", c.vector, m.visibility = 'live' as live ${FILTER}${scope.sql} and m.role = @role order by c.message_id, c.id`,
    );
    for (const role of MESSAGE_ROLES) {
      const n = counts.get(role) ?? 0;
      if (n === 0) continue;
      const data = new Float32Array(n * dims);
      const bytesView = new Uint8Array(data.buffer);
      const seg: AllowedSegment = {
        role,
        rows: 0,
        matrix: { dims, rows: 0, data },
        chunkIds: new Float64Array(n),
        messageIds: new Float64Array(n),
        sessionIdx: new Int32Array(n),
        start: new Int32Array(n),
        end: new Int32Array(n),
        live: new Uint8Array(n),
      };
      let row = 0;
      for (const r of stmt.iterate({ ...params, role }) as IterableIterator<{ chunk_id: number; message_id: number; session_id: string; start: number; end: number; vector: Buffer; live: number }>) {
        if (row >= n) break; // cannot happen inside one snapshot; guards the buffers anyway
        if (r.vector.length !== dims * 4) {
          skipped++;
          continue;
        }
        r.vector.copy(bytesView, row * dims * 4); // Float32 little-endian, as stored
        seg.chunkIds[row] = r.chunk_id;
        seg.messageIds[row] = r.message_id;
        let si = sessionIndex.get(r.session_id);
        if (si === undefined) {
          si = sessions.length;
          sessions.push(r.session_id);
          sessionIndex.set(r.session_id, si);
        }
        seg.sessionIdx[row] = si;
        seg.start[row] = r.start;
        seg.end[row] = r.end;
        seg.live[row] = r.live;
        row++;
      }
      (seg.matrix as { rows: number }).rows = row;
      seg.rows = row;
      orderSegment(seg); // already in order (the ORDER BY): one check
      rows += row;
      bytes += data.byteLength + n * 29;
      segments.push(seg);
    }
    return { fingerprintId, dims, sessions, segments, rows, bytes, skipped, readVectors: vectorReader(db, fingerprintId) };
  });
  return read.deferred();
}

const readers = new WeakMap<RecallDatabase, (fingerprintId: number, chunkIds: readonly number[]) => Map<number, Uint8Array>>();

/** One prepared batch lookup per connection (primary-key lookups, ids first): vector blobs of chunks still ready in the fingerprint. */
function vectorReader(db: RecallDatabase, fingerprintId: number): (chunkIds: readonly number[]) => Map<number, Uint8Array> {
  let read = readers.get(db);
  if (!read) {
    const stmt = db.raw.prepare("select c.id, c.vector from json_each(?) j cross join semantic_chunks c on c.id = j.value where c.fingerprint_id = ? and c.status = 'ready'").raw();
    read = (fp, ids) => {
      const out = new Map<number, Uint8Array>();
      for (const [id, vector] of stmt.iterate(JSON.stringify(ids), fp) as IterableIterator<[number, Uint8Array | null]>) if (vector) out.set(id, vector);
      return out;
    };
    readers.set(db, read);
  }
  const r = read;
  return (chunkIds) => r(fingerprintId, chunkIds);
}

/**
 * The cache generation of a project: bumped by the index's triggers whenever its allowed set may
 * change (see the semantic contract). 0 when the project never had a bump.
 */
export function projectGeneration(db: RecallDatabase, projectId: string): number {
  const gen = db.raw.prepare('select gen from semantic_generation where project_id = ?').pluck().get(projectId) as number | undefined;
  return gen ?? 0;
}

const sources = new WeakMap<RecallDatabase, AllowedSetSource>();

/** The matrix cache's source for one connection (the same object for the same connection, so the cache keys by it). */
export function sqliteAllowedSets(db: RecallDatabase): AllowedSetSource {
  let source = sources.get(db);
  if (!source) {
    source = {
      generation: (projectId) => projectGeneration(db, projectId),
      load: (projectId, fingerprintId, dims) => loadAllowedSet(db, { projectId }, fingerprintId, dims),
    };
    sources.set(db, source);
  }
  return source;
}
