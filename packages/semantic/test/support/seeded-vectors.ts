/**
 * Seeded vectors for the PostgreSQL cache property tests: a mulberry32 generator and unit vectors
 * drawn from it, the same for a seed on every run.
 */

/** Seeded generator (mulberry32). */
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

/**
 * A unit vector of `dims` components drawn from seededRng(seed). With `spread`, about one component
 * in ten is scaled by it (outliers a cache's per-column scales must absorb); each component then
 * takes a second draw, so the vectors differ from the plain ones even for spread 1.
 */
export function seededUnitVector(seed: number, dims: number, spread?: number): Float32Array {
  const r = seededRng(seed);
  const v = Float32Array.from({ length: dims }, () => (spread === undefined ? r() - 0.5 : (r() - 0.5) * (r() < 0.1 ? spread : 1)));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}
