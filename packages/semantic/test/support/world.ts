/**
 * Test support for the scan and the source: real SQLite files in temp dirs (openDatabase), a
 * deterministic bag-of-words embedder (TEST CODE ONLY — its numbers are never model quality), and
 * a writer that stores a message's vector as a ready chunk, as the index worker would.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openDatabase, type RecallDatabase } from '@recall/schema';

const opened: RecallDatabase[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-semantic-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  opened.push(db);
  return db;
}

export const TEST_DIMS = 32;

/** Each lower-cased word adds a ±1 at two hashed positions; the sum is L2-normalised. */
export function testEmbed(text: string, dims = TEST_DIMS): Float32Array {
  const v = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const h = createHash('sha256').update(word).digest();
    for (let j = 0; j < 2; j++) {
      const at = h[j * 2]! % dims;
      v[at] = v[at]! + (h[j * 2 + 1]! & 1 ? 1 : -1);
    }
  }
  let s = 0;
  for (const x of v) s += x * x;
  if (s === 0) v[0] = 1;
  else for (let i = 0; i < dims; i++) v[i] = v[i]! / Math.sqrt(s);
  return v;
}

/** A counting test embedder with the provider's shape. */
export function testEmbedder(dims = TEST_DIMS, delayMs = 0) {
  const embedder = {
    info: { dims },
    calls: 0,
    texts: 0,
    async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
      embedder.calls++;
      embedder.texts += texts.length;
      if (delayMs > 0) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, delayMs);
          options.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      }
      return texts.map((t) => testEmbed(t, dims));
    },
  };
  return embedder;
}

export function createFingerprint(db: RecallDatabase, model = 'test-bow', dims = TEST_DIMS): { id: number; dims: number } {
  const key = createHash('sha256').update(JSON.stringify({ model, dims })).digest('hex');
  const id = db.raw
    .prepare("insert into semantic_fingerprints (key, provider, endpoint, model, dims, normalization, chunker_version, created_at) values (?, 'openai-compatible', 'http://127.0.0.1:1/v1', ?, ?, 'l2', 1, 0) returning id")
    .pluck()
    .get(key, model, dims) as number;
  return { id, dims };
}

function blob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

/**
 * Stores ready chunks for a message as the worker would. `chunks` defaults to one chunk covering the
 * whole message, embedded with testEmbed; pass explicit ranges/vectors to test best-chunk selection.
 */
export function indexMessage(
  db: RecallDatabase,
  fp: { id: number; dims: number },
  messageId: number,
  chunks?: Array<{ start: number; end: number; vector?: Float32Array }>,
): void {
  const m = db.raw.prepare('select session_id, content from messages where id = ?').get(messageId) as { session_id: string; content: string };
  const hash = createHash('sha256').update(m.content).digest('hex');
  const list = chunks ?? [{ start: 0, end: m.content.length }];
  const ins = db.raw.prepare(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, vector, status, attempts, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, 1, ?, 'ready', 1, 0, 0)`,
  );
  db.raw.transaction(() => {
    list.forEach((c, i) => ins.run(fp.id, messageId, m.session_id, i, c.start, c.end, hash, blob(c.vector ?? testEmbed(m.content.slice(c.start, c.end), fp.dims))));
  })();
}

export function indexAll(db: RecallDatabase, fp: { id: number; dims: number }, messageIds: readonly number[]): void {
  for (const id of messageIds) indexMessage(db, fp, id);
}

/** Many messages sharing one vector, in one statement loop (for the 100k-row filter test). */
export function indexSameVector(db: RecallDatabase, fp: { id: number; dims: number }, messageIds: readonly number[], vector: Float32Array): void {
  const ins = db.raw.prepare(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, vector, status, attempts, created_at, updated_at)
     select ?, m.id, m.session_id, 0, 0, length(m.content), 'h', 1, ?, 'ready', 1, 0, 0 from messages m where m.id = ?`,
  );
  const b = blob(vector);
  db.raw.transaction(() => {
    for (const id of messageIds) ins.run(fp.id, b, id);
  })();
}
