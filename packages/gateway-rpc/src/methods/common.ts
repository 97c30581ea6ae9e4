/**
 * Shared pieces of the method handlers: `method()` (defineMethod bound to the gateway's call
 * context) and the zod field schemas every params object is built from. Every field is described
 * (the descriptions feed `rpc.discover` and docs/rpc.md) and bounded, so the protocol layer rejects
 * oversized or malformed input with -32602 before any handler or store function runs. The store
 * re-validates domain rules (names, paths, lineage) and answers with its own stable codes.
 */
import { z } from 'zod';
import type { CallContext } from '../context.js';
import { defineMethod, type MethodDefinition, type MethodHandler } from '../jsonrpc.js';

export type GatewayMethod = MethodDefinition<z.ZodType, unknown, CallContext>;

export function method<S extends z.ZodType, R>(name: string, summary: string, params: S, handler: MethodHandler<z.output<S>, R, CallContext>): GatewayMethod {
  return defineMethod<S, R, CallContext>(name, params, handler, { summary }) as unknown as GatewayMethod;
}

/** Ids are opaque strings; imported data keeps its own ids (e.g. "p_0", "s1"), so only the length is bounded here. */
export const projectIdField = z.string().min(1).max(200).describe('Project id (opaque, e.g. "p_…")');
export const sessionIdField = z.string().min(1).max(200).describe('Session id (opaque, e.g. "s_…")');
export const messageIdField = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Message id (positive integer)');
export const pathField = z.string().min(1).max(4096).describe('Absolute folder path');
export const titleField = z.string().max(500).describe('Title (at most 500 characters)');
/** Message text is bounded by the HTTP body / WebSocket message limit (1 MiB by default) as well. */
export const contentField = z.string().max(1_048_576).describe('Message text (at most 1 MiB of UTF-16)');
export const roleField = z.enum(['user', 'assistant', 'system', 'tool']).describe('Message role');
export const limitField = (max: number, def: number) => z.number().int().min(1).max(max).default(def).describe(`Maximum number of items (1-${max}, default ${def})`);
export const offsetField = z.number().int().min(0).max(1_000_000).default(0).describe('Number of items to skip (default 0)');
export const timestampField = z.number().int().min(0).max(8_640_000_000_000_000).describe('Milliseconds since the epoch');

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
