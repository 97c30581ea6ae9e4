/**
 * Public surface of @recall/bench (private, never published): the helpers the repository's benches
 * share, for other tooling that measures things the same way. The benches themselves are commands
 * (src/*-bench.ts, fusion-tune.ts, result-size.ts), run through the root `bench:*` scripts.
 */
/** A seeded PRNG (mulberry32): the same generated corpus run to run. */
export { rng } from './util.js';
/** The p-th percentile (nearest rank) of ascending samples. */
export { percentile } from './util.js';
/** Count, mean, p50, p95 and max of latency samples. */
export { stats } from './util.js';
/** Formatting of milliseconds and MiB for the report tables. */
export { ms, mib } from './util.js';
/** One line describing the machine (CPUs, RAM, Node, load average). */
export { machine } from './util.js';
/** `--name value` and `--name N` (100k, 1m) flags of a bench's command line. */
export { argValue, argNumber } from './util.js';
/** Prints a usage text and exits 0 when the command line has `--help` / `-h`. */
export { exitOnHelp } from './util.js';
/** The repository root and where the shared evaluation data is read from (`--data DIR`). */
export { REPO_ROOT, sharedDataPath } from './util.js';
/** Errors of the benches, with stable string codes. */
export { BenchError, BenchArgumentError } from './errors.js';
/** Stable codes of @recall/bench errors. */
export type { BenchErrorCode } from './errors.js';
