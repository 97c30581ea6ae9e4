/**
 * `bench:postgres --load-variants`: the allowed-set load of ChunkStore.projectVectors (what a
 * MatrixCache rebuild reads) on the bench's own rows, the adapter's binary COPY load
 * (store-postgres adapter/vector-load.ts) against the previous cursor load (vector-load-cursor.ts:
 * window-function positions, `vector_send` bytea as hex text through 4096-row FETCHes),
 * alternating, each inside the project's row-level-security transaction (scopedRead), with wall
 * time, this process's CPU per load, and the rows compared byte for byte between the two.
 */
import { loadAllowedSet, loadAllowedSetByCursor } from '@recall/store-postgres/internal';
import { scopedRead, type RecallPostgres } from '@recall/store-postgres';
import type { AllowedSetRows } from '@recall/storage-ports';
import { quantizeMatrix } from '@recall/semantic/internal';
import { ms, stats } from './util.js';

/** The rows of `set` with sessions by id (the two loads may number them differently), vectors as bytes. */
function same(x: AllowedSetRows | null, y: AllowedSetRows | null): boolean {
  if (!x || !y) return x === y;
  if (x.skipped !== y.skipped || x.segments.length !== y.segments.length) return false;
  return x.segments.every((s, k) => {
    const t = y.segments[k]!;
    if (s.role !== t.role || s.rows !== t.rows) return false;
    const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    for (const f of ['vectors', 'chunkIds', 'messageIds', 'start', 'end', 'live'] as const) if (!bytes(s[f]).equals(bytes(t[f]))) return false;
    for (let i = 0; i < s.rows; i++) if (x.sessions[s.sessionIdx[i]!] !== y.sessions[t.sessionIdx[i]!]) return false;
    return true;
  });
}

/** Runs `rounds` alternating pairs of loads (each followed by the int8 quantisation a rebuild does next); returns table lines. */
export async function loadVariants(db: RecallPostgres, input: { fingerprintId: number; projectId: string; dims: number; rounds: number }): Promise<string[]> {
  const { fingerprintId, projectId, dims } = input;
  const variants = [
    { name: 'binary COPY, positions in the client (the adapter)', load: loadAllowedSet },
    { name: 'cursor, window positions, hex bytea FETCH 4096 (before)', load: loadAllowedSetByCursor },
  ];
  const wall = variants.map(() => [] as number[]);
  const cpu = variants.map(() => [] as number[]);
  const withQuant = variants.map(() => [] as number[]);
  let equal = 0;
  let rows = 0;
  for (let round = 0; round < input.rounds; round++) {
    const got: Array<AllowedSetRows | null> = [];
    for (const [i, v] of (round % 2 === 0 ? variants : [...variants].reverse()).entries()) {
      const index = round % 2 === 0 ? i : variants.length - 1 - i;
      const c0 = process.cpuUsage();
      const t = performance.now();
      const set = await scopedRead(db.pool, { projectId }, (tx) => v.load(tx, projectId, fingerprintId, dims, Number.MAX_SAFE_INTEGER));
      wall[index]!.push(performance.now() - t);
      const c = process.cpuUsage(c0);
      cpu[index]!.push((c.user + c.system) / 1000);
      for (const seg of set?.segments ?? []) quantizeMatrix(seg.vectors, seg.rows, dims); // what a rebuild does next (MatrixCache.settle)
      withQuant[index]!.push(performance.now() - t);
      got[index] = set;
    }
    rows = got[0]?.segments.reduce((n, s) => n + s.rows, 0) ?? 0;
    if (same(got[0]!, got[1]!)) equal++;
  }
  const base = stats(wall[1]!).p50;
  return variants.map((v, i) => {
    const w = stats(wall[i]!);
    return `| ${rows.toLocaleString('en')} × ${dims} | ${v.name} | ${ms(w.p50)} / ${ms(Math.min(...wall[i]!))} | ${(w.p50 / base).toFixed(2)} | ${ms(stats(cpu[i]!).p50)} | ${ms(stats(withQuant[i]!).p50)} | ${equal} / ${input.rounds} |`;
  });
}
