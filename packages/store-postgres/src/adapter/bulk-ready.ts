/**
 * A bench-only bulk writer of READY chunk rows (`@recall/store-postgres/internal`): the rows that
 * ChunkStore.plan, ClaimQueue.claim and ClaimQueue.complete leave behind for chunks embedded at
 * once, written by one INSERT … SELECT FROM unnest(…) per call instead of three statements and a
 * lease round trip per batch. `pnpm bench:postgres` seeds 100k–1M vectors with it.
 *
 * Same rows as that path (test/bulk-ready.test.ts compares them column by column): fingerprint,
 * message, session, chunk index, offsets, content hash, the fingerprint's chunker version, the
 * vector, status `ready`, one attempt, no error, no lease, no next attempt, the scope copies of
 * migration 0003 (project, role, visibility) read from the message and its session, and the
 * generated halfvec copy of migration 0011; the same conditions as plan + complete (the message is
 * visible with that content hash, its session is not hidden and is in a project switched on for the
 * fingerprint's endpoint — others are not written), the sessions and messages locked FOR SHARE as
 * the planner does, and `on conflict do nothing` (a chunk already planned is kept). Row ids follow
 * the order given (the planner's insert numbers a message's chunks in whatever order its join
 * emits them; ids only break exact score ties, and only within one message). The insert is
 * one statement of ready rows, so migration 0014's statement trigger logs it as ONE addition per
 * project (the MatrixCache catches up by a delta; past 65,536 rows of one project in one statement
 * the trigger records a rebuild instead, as for any statement that large).
 *
 * The vectors travel as one binary `vector[]` parameter (pg sends a Buffer parameter in binary
 * format; PostgreSQL reads it with array_recv → pgvector's vector_recv: int16 dims, int16 unused,
 * float4 big-endian each): bit for bit the float32 values the text path writes, without formatting
 * and parsing 384 decimals per row.
 */
import type pg from 'pg';
import { CONTENT_HASH_SQL } from './semantic-work.js';
import { nowMs, VISIBLE_SQL, write } from './tx.js';

/** Ready chunks to insert: parallel arrays, one entry per chunk, and one vector each. */
export interface ReadyChunkColumns {
  messageIds: readonly number[];
  chunkIndexes: readonly number[];
  starts: readonly number[];
  ends: readonly number[];
  /** sha256 hex of the message's UTF-8 content (as ChunkStore.plan is given it). */
  contentHashes: readonly string[];
  /** One vector per chunk, all of the fingerprint's dimensions. */
  vectors: readonly Float32Array[];
}

/** The `vector[]` parameter in PostgreSQL's binary array form (array_send of vector_send elements). */
export function vectorArrayBinary(vectorOid: number, vectors: readonly Float32Array[]): Buffer {
  const dims = vectors.length > 0 ? vectors[0]!.length : 0;
  const element = 4 + 4 + 4 * dims; // int32 length, int16 dims, int16 unused, float4 each
  const out = Buffer.allocUnsafe(20 + element * vectors.length);
  out.writeInt32BE(1, 0); // one dimension
  out.writeInt32BE(0, 4); // no nulls
  out.writeUInt32BE(vectorOid, 8);
  out.writeInt32BE(vectors.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (const v of vectors) {
    if (v.length !== dims) throw new RangeError(`every vector must have ${dims} dimensions, got ${v.length}`);
    out.writeInt32BE(4 + 4 * dims, at);
    out.writeInt16BE(dims, at + 4);
    out.writeInt16BE(0, at + 6);
    at += 8;
    for (let i = 0; i < dims; i++, at += 4) out.writeFloatBE(v[i]!, at);
  }
  return out;
}

/**
 * Inserts ready chunk rows with their vectors in one statement (in one write transaction) and
 * returns how many were new. Rows whose message is not visible with that content hash, whose
 * session is hidden or not in a project switched on for the fingerprint's endpoint, or that exist
 * already (fingerprint, message, content hash, chunk index) are not written.
 */
export async function insertReadyChunks(pool: pg.Pool, fingerprintId: number, c: ReadyChunkColumns): Promise<number> {
  const n = c.messageIds.length;
  if ([c.chunkIndexes, c.starts, c.ends, c.contentHashes, c.vectors].some((a) => a.length !== n)) throw new RangeError('every column must have one entry per chunk');
  if (!Number.isSafeInteger(fingerprintId) || fingerprintId <= 0) throw new RangeError('fingerprint id must be a positive integer');
  if (n === 0) return 0;
  return write(pool, async (tx) => {
    const fp = (await tx.query("select f.dims, 'vector'::regtype::oid as oid from semantic_fingerprints f where f.id = $1", [fingerprintId])).rows[0] as { dims: number; oid: number } | undefined;
    if (!fp) return 0;
    if (c.vectors.some((v) => v.length !== Number(fp.dims))) throw new RangeError(`every vector must have the fingerprint's ${fp.dims} dimensions`);
    const now = nowMs();
    const r = await tx.query(
      `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts,
                                    last_error, lease_owner, lease_until, next_attempt_at, created_at, updated_at, project_id, role, visibility)
       select $1, c.message_id, m.session_id, c.chunk_index, c.start, c."end", c.content_hash, f.chunker_version, c.embedding, 'ready', 1,
              null, null, null, null, $2, $2, s.project_id, m.role, m.visibility
         from unnest($3::bigint[], $4::int[], $5::int[], $6::int[], $7::text[], $8::vector[]) with ordinality as c(message_id, chunk_index, start, "end", content_hash, embedding, ord)
         join messages m on m.id = c.message_id
         join sessions s on s.id = m.session_id
         join semantic_fingerprints f on f.id = $1
         join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = f.endpoint
        where m.visibility in ${VISIBLE_SQL} and not s.hidden and ${CONTENT_HASH_SQL('m.content')} = c.content_hash
        order by c.ord
       for share of s, m
       on conflict (fingerprint_id, message_id, content_hash, chunk_index) do nothing`,
      [fingerprintId, now, c.messageIds, c.chunkIndexes, c.starts, c.ends, c.contentHashes, vectorArrayBinary(Number(fp.oid), c.vectors)],
    );
    return r.rowCount ?? 0;
  });
}
