/**
 * What one method of the contract is: a one-line summary (docs, `rpc.discover`) and the zod schema
 * its params must pass. The gateway validates with exactly this schema (defaults applied) before a
 * handler runs; clients type their calls with its input side.
 */
import type { z } from 'zod';

/** One method of the contract: its one-line summary and the zod schema its params must pass. */
export interface MethodSpec<S extends z.ZodType = z.ZodType> {
  /** One line for docs and `rpc.discover`. */
  readonly summary: string;
  /** Strict zod object; every field described and bounded. */
  readonly params: S;
}

/** Keeps the literal keys and schema types of a group of method specs while checking their shape. */
export function methodGroup<const T extends Record<string, MethodSpec>>(group: T): T {
  return group;
}
