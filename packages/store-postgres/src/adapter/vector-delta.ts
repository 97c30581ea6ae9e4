/**
 * ChunkStore.projectVectors `loadAdded` on PostgreSQL (vector-cache.ts): the rows a cached allowed
 * set lacks when only additions happened since it was read (migration 0014): the ids logged in
 * `semantic_additions` for generations in (after, upTo], read back through the allowed-set
 * conditions (vector-load.ts ALLOWED: fingerprint, ready, vector of the dimensions, visible message,
 * the project on the chunk row and on its session, session not hidden). ONE statement, so one
 * snapshot: it re-reads `rebuild_gen` (no other change since `after`: the log above `after` is
 * complete) together with the log and the rows; any doubt answers null and the cache rebuilds.
 * Additions are small (the rows of a few appends), so they travel as ordinary rows; each role's rows
 * come back in (message id, chunk id) order (the exact search's tie order), roles in MESSAGE_ROLES order.
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { AllowedRoleRows, AllowedSetRows } from '@recall/storage-ports';
import type { Tx } from './tx.js';
import { ALLOWED, vectorBytes } from './vector-load.js';

/** The allowed set's rows added to `projectId` after generation `after` up to `upTo`; null when a rebuild is needed or there are more than `maxRows`. */
export async function loadAddedRows(tx: Tx, projectId: string, fingerprintId: number, dims: number, after: number, upTo: number, maxRows: number): Promise<AllowedSetRows | null> {
  const rows = (
    await tx.query(
      `with log as (select a.chunk_ids from semantic_additions a where a.project_id = $2 and a.gen > $4 and a.gen <= $5),
            head as (select coalesce((select g.rebuild_gen <= $4 from semantic_generation g where g.project_id = $2), false) as ok,
                            (select coalesce(sum(cardinality(l.chunk_ids)), 0) from log l) as n)
       select head.ok, head.n, r.* from head left join lateral (
         select c.role, c.id, c.message_id, c.session_id, c.start, c."end", c.visibility = 'live' as live, vector_send(c.embedding) as v
           from semantic_chunks c join sessions s on s.id = c.session_id
          where head.ok and head.n <= $6 and c.id = any(array(select unnest(l.chunk_ids) from log l)) and ${ALLOWED} and vector_dims(c.embedding) = $3::int
       ) r on true`,
      [fingerprintId, projectId, dims, after, upTo, maxRows],
    )
  ).rows;
  const head = rows[0];
  if (!head || head.ok !== true || Number(head.n) > maxRows) return null;
  type Row = { role: MessageRole; id: number; messageId: number; sessionId: string; start: number; end: number; live: boolean; vector: Uint8Array };
  const byRole = new Map<MessageRole, Row[]>();
  let skipped = 0;
  for (const r of rows) {
    if (r.id === null) continue;
    const vector = vectorBytes(r.v as Buffer, dims);
    if (!vector) {
      skipped++;
      continue;
    }
    const role = r.role as MessageRole;
    let list = byRole.get(role);
    if (!list) byRole.set(role, (list = []));
    list.push({ role, id: Number(r.id), messageId: Number(r.message_id), sessionId: r.session_id as string, start: Number(r.start), end: Number(r.end), live: r.live === true, vector });
  }
  const sessions: string[] = [];
  const sessionIdx = new Map<string, number>();
  const segments: AllowedRoleRows[] = [];
  for (const role of MESSAGE_ROLES) {
    const list = byRole.get(role);
    if (!list) continue;
    list.sort((x, y) => x.messageId - y.messageId || x.id - y.id);
    const n = list.length;
    const seg: AllowedRoleRows = { role, rows: n, vectors: new Float32Array(n * dims), chunkIds: new Float64Array(n), messageIds: new Float64Array(n), sessionIdx: new Int32Array(n), start: new Int32Array(n), end: new Int32Array(n), live: new Uint8Array(n) };
    const bytes = new Uint8Array(seg.vectors.buffer);
    list.forEach((row, i) => {
      bytes.set(row.vector, i * dims * 4);
      seg.chunkIds[i] = row.id;
      seg.messageIds[i] = row.messageId;
      let si = sessionIdx.get(row.sessionId);
      if (si === undefined) {
        si = sessions.length;
        sessions.push(row.sessionId);
        sessionIdx.set(row.sessionId, si);
      }
      seg.sessionIdx[i] = si;
      seg.start[i] = row.start;
      seg.end[i] = row.end;
      seg.live[i] = row.live ? 1 : 0;
    });
    segments.push(seg);
  }
  return { sessions, segments, skipped };
}
