/**
 * Test support: a seeded pseudo-random generator (mulberry32), so generated test data is the same
 * for a seed on every run. Shared by the packages' tests (semantic's seeded vectors, store-postgres'
 * exact-scan and bulk-ready vectors); tooling/bench keeps its own `rng` in src/util.ts, because its benches run
 * from built JavaScript and this file is TypeScript source.
 */

/** A generator of uniform numbers in [0, 1) from `seed` (mulberry32): the same sequence for the same seed. */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
