/**
 * THE method table of the gateway: every JSON-RPC method name with its summary and params schema.
 * The gateway registers a handler for exactly these names (a test checks `rpc.discover` lists
 * exactly them), docs/rpc.md has one row per name with the same params (a test checks that too),
 * and clients type their calls with `RpcParamsInput<M>`.
 */
import type { z } from 'zod';
import { CHAT_METHODS } from './methods/chat.js';
import { DATA_METHODS } from './methods/data.js';
import { GATEWAY_METHODS } from './methods/gateway.js';
import { IMPORT_METHODS } from './methods/import.js';
import { INDEX_METHODS } from './methods/index-methods.js';
import { PAGE_METHODS } from './methods/pages.js';
import { PROJECT_METHODS } from './methods/projects.js';
import { SEARCH_METHODS } from './methods/search.js';
import { SESSION_METHODS } from './methods/sessions.js';

/** Every JSON-RPC method of the gateway: name → `{ summary, params }`, where `params` is the strict zod schema the gateway validates with (`parse()` applies defaults; a `ZodError` becomes -32602). */
export const RPC_METHODS = {
  ...PROJECT_METHODS,
  ...SESSION_METHODS,
  ...PAGE_METHODS,
  ...SEARCH_METHODS,
  ...INDEX_METHODS,
  ...IMPORT_METHODS,
  ...CHAT_METHODS,
  ...GATEWAY_METHODS,
  ...DATA_METHODS,
} as const;

/** A method name of the contract (a key of RPC_METHODS). */
export type RpcMethodName = keyof typeof RPC_METHODS;

/** Every method name, sorted (the order `rpc.discover` lists them in). */
export const RPC_METHOD_NAMES: readonly RpcMethodName[] = (Object.keys(RPC_METHODS) as RpcMethodName[]).sort();

/** What a client may send for method M (optional fields and defaults as optional keys). */
export type RpcParamsInput<M extends RpcMethodName> = z.input<(typeof RPC_METHODS)[M]['params']>;
/** What a handler of method M receives after validation (defaults applied). */
export type RpcParams<M extends RpcMethodName> = z.output<(typeof RPC_METHODS)[M]['params']>;

/** True when `name` is a method of the contract (narrows it to RpcMethodName). */
export function isRpcMethodName(name: string): name is RpcMethodName {
  return Object.hasOwn(RPC_METHODS, name);
}
