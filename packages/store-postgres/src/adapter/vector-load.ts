/**
 * The allowed-set load of ChunkStore.projectVectors (vector-cache.ts `load`), inside the project's
 * scoped read transaction: one count per role (the budget check and the arrays' sizes), then the
 * rows in ONE statement — `COPY (select …) TO STDOUT (FORMAT binary)` (copy-binary.ts), so ids,
 * anchors and vectors travel in their binary send forms (a vector: 4 + 4·dims bytes, half of the
 * hex text a bytea FETCH sends) and are decoded straight into the preallocated arrays as each
 * message arrives. The statement has no ORDER BY and no window function: a row's position in its
 * role's segment — (message id, chunk id) order, the tie order of the exact search (the SQL scan's
 * `order by distance, message_id, chunk id`; @recall/semantic's `compareRanked`) — is computed here: rows are
 * written in arrival order, then each segment is sorted in place when it is not already in order
 * (usually it is). Sessions are numbered in order of first appearance over the segments.
 * The result equals the cursor load's (vector-load-cursor.ts) row for row and byte for byte, with
 * session numbering in that deterministic order (test/vector-load.test.ts).
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { AllowedRoleRows, AllowedSetRows } from '@recall/storage-ports';
import { BinaryCopyOut } from './copy-binary.js';
import { inlineParameters, VISIBLE_SQL, type Tx } from './tx.js';

/** The allowed set's conditions on chunk row `c` and its session `s` ($1 fingerprint, $2 project). */
export const ALLOWED = `c.fingerprint_id = $1 and c.status = 'ready' and c.embedding is not null and c.visibility in ${VISIBLE_SQL}
  and c.project_id = $2 and s.project_id = c.project_id and not s.hidden`;

/** pgvector's binary form (int16 dims, int16 unused, float4 big-endian each) as little-endian float32 bytes; null on other dimensions. */
export function vectorBytes(binary: Buffer, dims: number): Uint8Array | null {
  if (binary.length !== 4 + dims * 4 || binary.readInt16BE(0) !== dims) return null;
  return binary.subarray(4).swap32();
}

/** The COPY's columns, in order. */
const COLUMNS = `c.role, c.id, c.message_id, c.session_id, c.start, c."end", c.visibility = 'live', c.embedding`;
const FIELDS = 8;

/** One role's rows while they arrive (arrival order), with room for `cap` rows. */
interface Building {
  role: MessageRole;
  rows: number;
  cap: number;
  vectors: Float32Array;
  bytes: Uint8Array;
  chunkIds: Float64Array;
  messageIds: Float64Array;
  /** Session numbers in order of arrival (renumbered at the end). */
  sessionIdx: Int32Array;
  start: Int32Array;
  end: Int32Array;
  live: Uint8Array;
}

function building(role: MessageRole, cap: number, dims: number): Building {
  const vectors = new Float32Array(cap * dims);
  return {
    role,
    rows: 0,
    cap,
    vectors,
    bytes: new Uint8Array(vectors.buffer),
    chunkIds: new Float64Array(cap),
    messageIds: new Float64Array(cap),
    sessionIdx: new Int32Array(cap),
    start: new Int32Array(cap),
    end: new Int32Array(cap),
    live: new Uint8Array(cap),
  };
}

/** `b` with room for `cap` rows (its first `b.rows` rows copied): when the COPY, a later statement in this read-committed transaction, sees more rows than the count did. */
function resized(b: Building, cap: number, dims: number): Building {
  const out = building(b.role, cap, dims);
  const n = Math.min(b.rows, cap);
  out.rows = n;
  out.vectors.set(b.vectors.subarray(0, n * dims));
  out.chunkIds.set(b.chunkIds.subarray(0, n));
  out.messageIds.set(b.messageIds.subarray(0, n));
  out.sessionIdx.set(b.sessionIdx.subarray(0, n));
  out.start.set(b.start.subarray(0, n));
  out.end.set(b.end.subarray(0, n));
  out.live.set(b.live.subarray(0, n));
  return out;
}

const int8At = (buf: Buffer, o: number): number => buf.readInt32BE(o) * 4294967296 + buf.readUInt32BE(o + 4);

/** Sorts `b`'s rows in place by (message id, chunk id) — the exact search's tie order — unless they already are. */
function sortRows(b: Building, dims: number): void {
  const { rows, messageIds: m, chunkIds: id } = b;
  const before = (x: number, y: number): number => m[x]! - m[y]! || id[x]! - id[y]!;
  let ordered = true;
  for (let i = 1; i < rows && ordered; i++) ordered = before(i - 1, i) < 0;
  if (ordered) return;
  const perm = Uint32Array.from({ length: rows }, (_, i) => i).sort(before); // perm[k]: the row that goes to position k
  const gather = <A extends Float64Array | Int32Array | Uint8Array>(a: A): void => {
    const copy = a.slice(0, rows);
    for (let k = 0; k < rows; k++) a[k] = copy[perm[k]!]!;
  };
  for (const a of [b.chunkIds, b.messageIds, b.sessionIdx, b.start, b.end, b.live]) gather(a);
  // Vectors in place, one cycle of the permutation at a time (one row of scratch).
  const v = b.vectors;
  const row = new Float32Array(dims);
  const done = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) {
    if (done[i] || perm[i] === i) continue;
    row.set(v.subarray(i * dims, (i + 1) * dims));
    let j = i;
    for (;;) {
      done[j] = 1;
      const k = perm[j]!;
      if (k === i) {
        v.set(row, j * dims);
        break;
      }
      v.copyWithin(j * dims, k * dims, (k + 1) * dims);
      j = k;
    }
  }
}

/** The allowed set of `projectId` for the fingerprint at `dims`, on `tx` (its scoped transaction); null when it has more than `maxRows` rows. */
export async function loadAllowedSet(tx: Tx, projectId: string, fingerprintId: number, dims: number, maxRows: number, signal?: AbortSignal): Promise<AllowedSetRows | null> {
  signal?.throwIfAborted();
  const params = [fingerprintId, projectId, dims];
  const counted = (
    await tx.query(
      `select c.role, count(*) filter (where vector_dims(c.embedding) = $3) as n, count(*) filter (where vector_dims(c.embedding) <> $3) as skipped
         from semantic_chunks c join sessions s on s.id = c.session_id where ${ALLOWED} group by c.role`,
      params,
    )
  ).rows;
  let skipped = 0;
  let total = 0;
  const byRole = new Map<string, Building>();
  for (const r of counted) {
    skipped += Number(r.skipped);
    total += Number(r.n);
    if (Number(r.n) > 0) byRole.set(r.role as string, building(r.role as MessageRole, Number(r.n), dims));
  }
  if (total > maxRows) return null;
  signal?.throwIfAborted();

  const rowBytes = dims * 4;
  const sessionNumber = new Map<string, number>();
  const arrivalSessions: string[] = [];
  let seen = 0;
  let aborted = false;
  const onAbort = (): void => {
    aborted = true; // the rest of the COPY is drained unread; the transaction then rolls back (tx.ts scoped)
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await BinaryCopyOut.run(
      tx,
      inlineParameters(tx, `copy (select ${COLUMNS} from semantic_chunks c join sessions s on s.id = c.session_id where ${ALLOWED} and vector_dims(c.embedding) = $3) to stdout (format binary)`, params),
      FIELDS,
      (buf, at, len) => {
        seen++;
        if (aborted || seen > maxRows) return;
        const role = buf.toString('utf8', at[0]!, at[0]! + len[0]!);
        let b = byRole.get(role);
        if (!b) byRole.set(role, (b = building(role as MessageRole, 16, dims)));
        else if (b.rows === b.cap) byRole.set(role, (b = resized(b, b.cap * 2, dims)));
        const vo = at[7]!;
        if (len[7] !== 4 + rowBytes || buf.readInt16BE(vo) !== dims) {
          skipped++; // cannot happen (the statement filters on the dimensions)
          return;
        }
        const i = b.rows++;
        b.bytes.set(buf.subarray(vo + 4, vo + 4 + rowBytes), i * rowBytes);
        b.chunkIds[i] = int8At(buf, at[1]!);
        b.messageIds[i] = int8At(buf, at[2]!);
        const sessionId = buf.toString('utf8', at[3]!, at[3]! + len[3]!);
        let si = sessionNumber.get(sessionId);
        if (si === undefined) {
          si = arrivalSessions.length;
          arrivalSessions.push(sessionId);
          sessionNumber.set(sessionId, si);
        }
        b.sessionIdx[i] = si;
        b.start[i] = buf.readInt32BE(at[4]!);
        b.end[i] = buf.readInt32BE(at[5]!);
        b.live[i] = buf[at[6]!] === 1 ? 1 : 0;
      },
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
  if (seen > maxRows) return null;

  // Segments in MESSAGE_ROLES order, as the SQLite adapter reads them (the segment order does not
  // rank: exact score ties go by message id, then chunk id, in whichever segment a row sits).
  const sessions: string[] = [];
  const renumber = new Int32Array(arrivalSessions.length).fill(-1);
  const segments: AllowedRoleRows[] = [];
  for (const role of MESSAGE_ROLES) {
    let b = byRole.get(role);
    if (!b || b.rows === 0) continue;
    if (b.rows < b.cap) b = resized(b, b.rows, dims);
    sortRows(b, dims);
    // float4 big-endian → the host's (little-endian) float32, the whole segment in one pass
    Buffer.from(b.vectors.buffer, b.vectors.byteOffset, b.vectors.byteLength).swap32();
    for (let i = 0; i < b.rows; i++) {
      const old = b.sessionIdx[i]!;
      if (renumber[old] === -1) {
        renumber[old] = sessions.length;
        sessions.push(arrivalSessions[old]!);
      }
      b.sessionIdx[i] = renumber[old]!;
    }
    segments.push({ role: b.role, rows: b.rows, vectors: b.vectors, chunkIds: b.chunkIds, messageIds: b.messageIds, sessionIdx: b.sessionIdx, start: b.start, end: b.end, live: b.live });
  }
  return { sessions, segments, skipped };
}
