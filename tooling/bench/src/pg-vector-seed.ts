/**
 * How `bench:postgres` writes the chunk rows of its seeded vectors (`--seed`): `bulk` (default) in
 * one INSERT of ready rows per session (store-postgres/internal insertReadyChunks: the rows that
 * ChunkStore.plan, ClaimQueue.claim and complete leave, checked row for row in
 * packages/store-postgres/test/bulk-ready.test.ts), or `ports` through those three calls, as the
 * index worker writes them. The messages themselves are appended through MessageStore.append either way.
 */
import { createHash } from 'node:crypto';
import type { Storage } from '@recall/storage-ports';
import type { RecallPostgres } from '@recall/store-postgres';
import { insertReadyChunks } from '@recall/store-postgres/internal';
import { BenchArgumentError } from './errors.js';

/** The two ways to write the seeded chunk rows. */
export type SeedMode = 'bulk' | 'ports';

/** `--seed` as a SeedMode (bulk when absent). */
export function seedMode(value: string | undefined): SeedMode {
  const mode = value || 'bulk';
  if (mode !== 'bulk' && mode !== 'ports') throw new BenchArgumentError(`--seed expects bulk or ports, got ${mode}`);
  return mode;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** One ready chunk per message (the whole content), message i with vectors[i]. */
export async function writeReadyChunks(
  mode: SeedMode,
  target: { storage: Storage; pool: RecallPostgres['pool']; fingerprintId: number; endpoint: string; projectId: string },
  messages: ReadonlyArray<{ id: number; content: string }>,
  vectors: readonly Float32Array[],
): Promise<void> {
  const { storage, fingerprintId, endpoint, projectId } = target;
  if (mode === 'ports') {
    const { chunks, claims } = storage.semantic!;
    await chunks.plan(fingerprintId, messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
    const byMessage = new Map(messages.map((m, i) => [m.id, vectors[i]!]));
    const work = await claims.claim({ fingerprintId, endpoint, owner: 'bench', limit: messages.length, leaseMs: 600_000, maxAttempts: 3, projectId });
    await claims.complete('bench', work.map((chunk) => ({ chunk, vector: byMessage.get(chunk.messageId)! })));
    return;
  }
  const written = await insertReadyChunks(target.pool, fingerprintId, {
    messageIds: messages.map((m) => m.id),
    chunkIndexes: messages.map(() => 0),
    starts: messages.map(() => 0),
    ends: messages.map((m) => m.content.length),
    contentHashes: messages.map((m) => sha(m.content)),
    vectors,
  });
  if (written !== messages.length) throw new Error(`the bulk seed wrote ${written} of ${messages.length} chunk rows`);
}
