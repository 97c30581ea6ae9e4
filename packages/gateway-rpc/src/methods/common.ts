/**
 * Shared pieces of the method handlers: `method()` binds a handler to one method of the contract
 * (@recall/rpc-contract) — its name, summary and params schema come from there, so the gateway
 * validates with exactly the schema clients are typed against, and the handler's return type is
 * checked against the contract's result type at compile time. `definedOnly()` turns parsed params
 * into store inputs without `undefined` keys.
 */
import { RPC_METHODS, type RpcMethodName, type RpcParams, type RpcResult } from '@recall/rpc-contract';
import type { z } from 'zod';
import type { PurgeStore } from '@recall/storage-ports';
import { readTransaction } from '@recall/store';
import type { CallContext } from '../context.js';
import { GatewayError } from '../errors.js';
import { defineMethod, type MethodDefinition, type MethodHandler } from '../jsonrpc.js';

export type GatewayMethod = MethodDefinition<z.ZodType, unknown, CallContext>;

/** The handler of contract method `name`; it receives the parsed params (defaults applied). */
export function method<M extends RpcMethodName>(name: M, handler: MethodHandler<RpcParams<M>, RpcResult<M>, CallContext>): GatewayMethod {
  const spec = RPC_METHODS[name];
  return defineMethod<z.ZodType, RpcResult<M>, CallContext>(name, spec.params, handler as MethodHandler<unknown, RpcResult<M>, CallContext>, {
    summary: spec.summary,
  }) as unknown as GatewayMethod;
}

/** `T` with its optional (`| undefined`) properties made truly optional and never `undefined`. */
export type DefinedOnly<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Present-vs-absent matters (upsert semantics), so helpers copy only defined keys into store inputs. */
export function definedOnly<T extends Record<string, unknown>>(value: T): DefinedOnly<T> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as DefinedOnly<T>;
}

/**
 * The storage's hard deletes (PurgeStore; both adapters have one). A storage without them answers
 * `storage_unsupported` with `what` in a sentence for people.
 */
export function purgesOf(ctx: CallContext, what: string): PurgeStore {
  if (ctx.storage.purges) return ctx.storage.purges;
  throw new GatewayError('storage_unsupported', `${what} is not available with this storage. See docs/team-mode.md for what team mode serves.`, { data: { kind: ctx.storage.kind } });
}

/**
 * Runs reads that must agree (a session row and its page) in one snapshot where the storage has
 * one cheaply: on SQLite the port calls run synchronously inside one read transaction; elsewhere
 * they run concurrently.
 */
export function snapshot<T>(ctx: CallContext, reads: () => Promise<T>): Promise<T> {
  if (ctx.db === null || ctx.storage.kind !== 'sqlite') return reads();
  // better-sqlite3 refuses a transaction function that returns a promise: keep it outside.
  let pending: Promise<T> | undefined;
  readTransaction(ctx.db, () => {
    pending = reads();
  });
  return pending!;
}
