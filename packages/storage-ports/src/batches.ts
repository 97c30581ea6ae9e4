/**
 * WriteBatches: many writes in ONE write transaction, for importers (a batch of records commits
 * together, a refused record can be undone alone). One program runs on both adapters: a batch
 * program is a generator that yields each store call (`const s = yield* batchCall(tx.sessions.find(id))`)
 * and receives its value. The SQLite adapter answers synchronously inside one BEGIN IMMEDIATE
 * transaction — nothing else on the connection can interleave, and the bulk mode keeps today's
 * ingest speed — while the PostgreSQL adapter awaits each call on one pooled client inside
 * BEGIN … COMMIT. `batchIsolate(step)` runs a step in a savepoint: when it throws, only its writes are
 * undone and the error reaches the program, which may report it and go on.
 */
import type { Project, Session } from '@recall/rpc-contract';
import type { AppendOutcome, MessageInput } from './messages.js';
import type { NewProject } from './projects.js';
import type { NewSession, SessionChanges, SessionUpsert } from './sessions.js';

/** A value, or a promise of it (SQLite batch stores answer with values, PostgreSQL ones with promises). */
export type Awaitable<T> = T | PromiseLike<T>;

/** The calls a batch program may make; each behaves (rules, typed errors) as the port method of the same name. */
export interface BatchStores {
  readonly projects: {
    find(projectId: string): Awaitable<Project | undefined>;
    create(input: NewProject): Awaitable<Project>;
    archive(projectId: string, archived?: boolean): Awaitable<Project>;
    forFolder(path: string, options?: { name?: string; confirmHome?: boolean }): Awaitable<{ project: Project; created: boolean }>;
  };
  readonly sessions: {
    find(sessionId: string): Awaitable<Session | undefined>;
    create(input: NewSession): Awaitable<Session>;
    upsert(input: SessionUpsert): Awaitable<Session>;
    update(sessionId: string, changes: SessionChanges): Awaitable<Session>;
    projectId(sessionId: string): Awaitable<string | null>;
  };
  readonly messages: {
    append(sessionId: string, messages: readonly MessageInput[]): Awaitable<AppendOutcome>;
  };
}

/** One step of a batch program: a store call's answer-to-be, or a nested program to run in a savepoint. */
export type BatchStep = { readonly kind: 'call'; readonly value: Awaitable<unknown> } | { readonly kind: 'isolate'; readonly program: BatchProgram<unknown> };

/** A batch program: yields steps, receives each step's value, returns its result. */
export type BatchProgram<T> = Generator<BatchStep, T, unknown>;

/** Options of WriteBatches.run. */
export interface BatchRunOptions {
  /**
   * One atomic batch without a savepoint per store call (SQLite: FTS5 flushes at every savepoint,
   * so this is the fast ingest mode). Any error rolls the whole batch back, and `batchIsolate` steps
   * are NOT undone alone: use it only for a program that lets every error through.
   */
  bulk?: boolean;
}

/** Runs batch programs in one write transaction each. */
export interface WriteBatches {
  /** Runs `program` in one write transaction: committed when it returns, rolled back when it throws (the error is rethrown). */
  run<T>(program: (tx: BatchStores) => BatchProgram<T>, options?: BatchRunOptions): Promise<T>;
}

/** A store call as a step: `const value = yield* batchCall(tx.sessions.find(id))`. */
export function* batchCall<T>(value: Awaitable<T>): Generator<BatchStep, T, unknown> {
  return (yield { kind: 'call', value }) as T;
}

/** Runs `program` in a savepoint: when it throws, only its writes are undone and the error is thrown here. */
export function* batchIsolate<T>(program: BatchProgram<T>): Generator<BatchStep, T, unknown> {
  return (yield { kind: 'isolate', program: program as BatchProgram<unknown> }) as T;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * Drives a program whose store calls answer with values (the SQLite adapter), synchronously;
 * `inSavepoint` runs an isolate step. A promise among the answers is a programming error (TypeError).
 */
export function driveBatchSync<T>(program: BatchProgram<T>, inSavepoint: <U>(run: () => U) => U): T {
  let input: unknown;
  let failure: { error: unknown } | null = null;
  for (;;) {
    const next = failure ? program.throw(failure.error) : program.next(input);
    failure = null;
    if (next.done) return next.value;
    const step = next.value;
    try {
      if (step.kind === 'isolate') input = inSavepoint(() => driveBatchSync(step.program, inSavepoint));
      else if (isThenable(step.value)) throw new TypeError('a synchronous batch was given a promise');
      else input = step.value;
    } catch (error) {
      failure = { error };
    }
  }
}

/** Drives a program whose store calls answer with promises (the PostgreSQL adapter); `inSavepoint` runs an isolate step. */
export async function driveBatchAsync<T>(program: BatchProgram<T>, inSavepoint: <U>(run: () => Promise<U>) => Promise<U>): Promise<T> {
  let input: unknown;
  let failure: { error: unknown } | null = null;
  for (;;) {
    const next = failure ? program.throw(failure.error) : program.next(input);
    failure = null;
    if (next.done) return next.value;
    const step = next.value;
    try {
      input = step.kind === 'isolate' ? await inSavepoint(() => driveBatchAsync(step.program, inSavepoint)) : await step.value;
    } catch (error) {
      failure = { error };
    }
  }
}
