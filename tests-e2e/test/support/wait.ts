/**
 * Bounded waiting. `eventually` retries an assertion until it passes or the deadline is reached,
 * then rethrows the last failure with what was being waited for. Nothing in the tests loops
 * without a bound.
 */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T> | T,
  { timeoutMs = 10_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const reason = last instanceof Error ? last.message : String(last);
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}: ${reason}`);
}
