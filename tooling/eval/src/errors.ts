/**
 * Errors of the retrieval eval, each with a stable string code. `pnpm eval` prints a usage error
 * with a pointer to --help and exits 2, any other EvalError as `error [code]: message` and exits 1.
 */

/** Stable codes of @recall/eval errors. */
export type EvalErrorCode = 'eval_data_missing' | 'eval_usage';

/** Base class of the eval's own errors. */
export class EvalError extends Error {
  constructor(
    readonly code: EvalErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** None of the requested datasets could be read (neither under `../shared/data` nor `--data DIR`). */
export class EvalDataMissingError extends EvalError {
  constructor(message: string) {
    super('eval_data_missing', message);
  }
}

/** A command-line flag the eval cannot use (unknown flag, bad value, missing companion flag). */
export class EvalUsageError extends EvalError {
  constructor(message: string) {
    super('eval_usage', message);
  }
}
