/**
 * The allowed-set load as it was before the binary COPY (vector-load.ts), kept as the reference the
 * store-postgres tests compare the new load with byte for byte, and for same-run A/B measurements
 * (./internal only, never used by the adapter): a cursor over a window-function statement giving
 * each row's position, FETCHed 4096 rows at a time, the vectors as `vector_send` bytea in text (hex).
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { AllowedRoleRows, AllowedSetRows } from '@recall/storage-ports';
import { ALLOWED, vectorBytes } from './vector-load.js';
import type { Tx } from './tx.js';

/** Rows per FETCH of the load cursor. */
const FETCH_ROWS = 4096;

/** The allowed set of `projectId` through the cursor (the load before vector-load.ts); null when it has more than `maxRows` rows. */
export async function loadAllowedSetByCursor(tx: Tx, projectId: string, fingerprintId: number, dims: number, maxRows: number, signal?: AbortSignal): Promise<AllowedSetRows | null> {
  signal?.throwIfAborted();
  const params = [fingerprintId, projectId, dims];
  const counted = (
    await tx.query(
      `select count(*) filter (where vector_dims(c.embedding) = $3) as n, count(*) filter (where vector_dims(c.embedding) <> $3) as skipped
         from semantic_chunks c join sessions s on s.id = c.session_id where ${ALLOWED}`,
      params,
    )
  ).rows[0];
  if (Number(counted.n) > maxRows) return null;
  await tx.query(
    `declare recall_allowed_set no scroll cursor for
       with ord as materialized (
         select c.id, (row_number() over w) - 1 as pos, count(*) over (partition by c.role) as n
           from semantic_chunks c join sessions s on s.id = c.session_id
          where ${ALLOWED} and vector_dims(c.embedding) = $3
         window w as (partition by c.role order by c.message_id, c.id))
       select o.pos, o.n, c.id, c.role, c.message_id, c.session_id, c.start, c."end", c.visibility = 'live' as live, vector_send(c.embedding) as v
         from ord o join semantic_chunks c on c.id = o.id`,
    params,
  );
  const sessions: string[] = [];
  const sessionIndex = new Map<string, number>();
  const byRole = new Map<string, { seg: AllowedRoleRows; bytes: Uint8Array }>();
  let skipped = Number(counted.skipped);
  for (;;) {
    signal?.throwIfAborted(); // the transaction rolls back (tx.ts scoped)
    const rows = (await tx.query(`fetch ${FETCH_ROWS} from recall_allowed_set`)).rows;
    for (const r of rows) {
      let entry = byRole.get(r.role);
      if (!entry) {
        const n = Number(r.n);
        const vectors = new Float32Array(n * dims);
        const seg: AllowedRoleRows = {
          role: r.role as MessageRole,
          rows: n,
          vectors,
          chunkIds: new Float64Array(n),
          messageIds: new Float64Array(n),
          sessionIdx: new Int32Array(n),
          start: new Int32Array(n),
          end: new Int32Array(n),
          live: new Uint8Array(n),
        };
        byRole.set(r.role, (entry = { seg, bytes: new Uint8Array(vectors.buffer) }));
      }
      const { seg, bytes } = entry;
      const pos = Number(r.pos);
      const vector = vectorBytes(r.v as Buffer, dims);
      if (!vector || pos >= seg.rows) {
        skipped++; // cannot happen (the statement filters on the dimensions and counts its own rows)
        continue;
      }
      bytes.set(vector, pos * dims * 4);
      seg.chunkIds[pos] = Number(r.id);
      seg.messageIds[pos] = Number(r.message_id);
      let si = sessionIndex.get(r.session_id);
      if (si === undefined) {
        si = sessions.length;
        sessions.push(r.session_id as string);
        sessionIndex.set(r.session_id, si);
      }
      seg.sessionIdx[pos] = si;
      seg.start[pos] = Number(r.start);
      seg.end[pos] = Number(r.end);
      seg.live[pos] = r.live === true ? 1 : 0;
    }
    if (rows.length < FETCH_ROWS) break;
  }
  await tx.query('close recall_allowed_set');
  // Segments in MESSAGE_ROLES order, as the SQLite adapter reads them; each role's rows in (message
  // id, chunk id) order, the exact search's tie order.
  const segments = MESSAGE_ROLES.flatMap((role) => (byRole.has(role) ? [byRole.get(role)!.seg] : []));
  const out: AllowedSetRows = { sessions, segments, skipped };
  return out;
}
