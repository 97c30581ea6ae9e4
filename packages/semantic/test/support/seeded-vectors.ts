/**
 * Seeded vectors for the PostgreSQL cache property tests: unit vectors drawn from a seeded
 * generator (@recall/config's mulberry32), the same for a seed on every run.
 */
import { seededRng } from '@recall/config/seeded-random';

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
