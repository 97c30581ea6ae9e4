/**
 * Errors of the benches, each with a stable string code. A bench that fails prints the error and
 * exits 1; `pnpm bench` reports the stage as failed.
 */

/** Stable codes of @recall/bench errors. */
export type BenchErrorCode = 'BENCH_INVALID_ARGUMENT';

/** Base class of the benches' own errors. */
export class BenchError extends Error {
  constructor(
    readonly code: BenchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A command-line flag with a value the bench cannot use (e.g. `--messages lots`). */
export class BenchArgumentError extends BenchError {
  constructor(message: string) {
    super('BENCH_INVALID_ARGUMENT', message);
  }
}
