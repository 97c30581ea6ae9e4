/**
 * The store's notion of "now" (integer ms). Kept in one place so tests and imports can pass
 * explicit timestamps while every default agrees.
 */
export function nowMs(): number {
  return Date.now();
}
