/**
 * Command-line flags of the semantic benches: `--name value` lookups and sizes written as 20k, 1m
 * or 100_000, so every bench reads its sizes the same way.
 */
import { BenchArgumentError } from './errors.js';

/** The value after `--name`; '' when the flag is present without a value; undefined when absent. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const next = process.argv[i + 1];
  return next === undefined || next.startsWith('--') ? '' : next;
}

/** A count with an optional k/m suffix (`20k`, `1m`, `100_000`). */
export function num(text: string): number {
  const m = /^([\d_.]+)([km]?)$/i.exec(text.trim());
  if (!m) throw new BenchArgumentError(`expected a number, got ${text}`);
  return Math.round(Number(m[1]!.replace(/_/g, '')) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}
