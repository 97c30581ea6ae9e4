/**
 * JSON-RPC 2.0, transport-independent: parsing, envelope validation, batches, notifications, the
 * method registry (`defineMethod(name, zodParamsSchema, handler)`) and dispatch. HTTP and
 * WebSocket both hand a raw text frame to `handleRpcText()` and send back whatever string it
 * returns (or nothing for a notification-only frame). Params are by-name only (an object, or
 * omitted meaning `{}`) and validated with the method's zod schema before the handler runs, so a
 * handler only ever sees typed, bounded input; invalid params answer -32602 with zod issues in
 * `data` and the handler is never called. Batch entries run sequentially in order, which keeps a
 * batch's writes deterministic over the single SQLite connection; between entries the batch yields
 * to the event loop so other clients are served meanwhile, and a batch is bounded twice: by cost
 * (a search counts SEARCH_COST, anything else 1, at most MAX_BATCH_COST) and by the size of its
 * answer (once MAX_BATCH_RESPONSE_BYTES are reached). Entries past either bound are not run; each
 * is answered `batch_limit` so the client knows exactly which ones to send again.
 */
import { z } from 'zod';
import { DOMAIN_ERROR_CODES, JSONRPC_INVALID_PARAMS, JSONRPC_INVALID_REQUEST, JSONRPC_METHOD_NOT_FOUND, JSONRPC_PARSE_ERROR } from '@recall/rpc-contract';
import { invalidParams, toJsonRpcError, type ErrorLogger, type JsonRpcErrorObject } from './errors.js';

/** A JSON-RPC request id as echoed in its response (`null` when the request's id was unusable). */
export type JsonRpcId = string | number | null;

/** A successful JSON-RPC response (`result` is `null` when the handler returned nothing). */
export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}
/** A failed JSON-RPC response; `error.data.code` is the stable string code when there is one. */
export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}
/** One JSON-RPC response, as {@link dispatch} returns it (an array of them for a batch). */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

/** Upper bound on entries in one batch: a batch is one HTTP body, but unbounded fan-out is still a DoS lever. */
export const MAX_BATCH_SIZE = 100;
/** Cost budget of one batch: 10 searches, or 100 cheap calls. */
export const MAX_BATCH_COST = 100;
export const SEARCH_COST = 10;
/** Once a batch's answer reaches this size, its remaining entries are not run. */
export const MAX_BATCH_RESPONSE_BYTES = 8 * 1024 * 1024;

function entryCost(entry: unknown): number {
  const method = isPlainObject(entry) ? entry.method : undefined;
  return typeof method === 'string' && (method.startsWith('search.') || method === 'chat.send') ? SEARCH_COST : 1;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolveYield) => setImmediate(resolveYield));
const MAX_METHOD_NAME_LENGTH = 128;

// ---------------------------------------------------------------------------------------------
// Method registry

/**
 * A method's implementation: receives the parsed, validated params and the per-call context (for
 * the gateway's registry a `CallContext`). Its result must be JSON-serialisable; a thrown coded
 * error (e.g. `GatewayError`) becomes a domain error on the wire, anything else -32603.
 */
export type MethodHandler<P, R, C> = (params: P, ctx: C) => R | Promise<R>;

/** A method as {@link defineMethod} builds it and {@link MethodRegistry} holds it. */
export interface MethodDefinition<S extends z.ZodType = z.ZodType, R = unknown, C = unknown> {
  /** The JSON-RPC method name (1–128 characters), e.g. `acme.stats`. */
  readonly name: string;
  /** One line for docs and `rpc.discover`. */
  readonly summary: string;
  /** The zod schema `params` are validated with before the handler runs (failures answer -32602). */
  readonly params: S;
  /** Runs with the parsed params. */
  readonly handler: MethodHandler<z.output<S>, R, C>;
}

/**
 * Declares a method. The params schema should be a (strict) zod object whose fields are all
 * `.describe()`d and bounded; the handler receives the parsed output (defaults applied). `summary`
 * defaults to the schema's description. Throws `Error` for an empty or over-long (> 128) name.
 */
export function defineMethod<S extends z.ZodType, R, C>(
  name: string,
  params: S,
  handler: MethodHandler<z.output<S>, R, C>,
  options: { summary?: string } = {},
): MethodDefinition<S, R, C> {
  if (name.length === 0 || name.length > MAX_METHOD_NAME_LENGTH) throw new Error(`Invalid method name ${JSON.stringify(name)}`);
  return { name, params, handler, summary: options.summary ?? params.description ?? '' };
}

/**
 * A table of methods by name, for {@link dispatch} and {@link handleRpcText}. `register()` throws
 * `Error` when a name is already registered (the gateway's own methods cannot be replaced).
 */
export class MethodRegistry<C> {
  // A Map, not an object literal: method names come from the network and must never reach
  // Object.prototype ("__proto__", "constructor", "toString").
  readonly #methods = new Map<string, MethodDefinition<z.ZodType, unknown, C>>();

  /** Adds methods; throws `Error` on a duplicate name. Returns the registry for chaining. */
  register(...definitions: MethodDefinition<z.ZodType, unknown, C>[]): this {
    for (const definition of definitions) {
      if (this.#methods.has(definition.name)) throw new Error(`Method ${definition.name} is registered twice`);
      this.#methods.set(definition.name, definition);
    }
    return this;
  }

  /** The method registered under `name`, or undefined. */
  get(name: string): MethodDefinition<z.ZodType, unknown, C> | undefined {
    return this.#methods.get(name);
  }

  /** Registered method names, sorted. */
  names(): string[] {
    return [...this.#methods.keys()].sort();
  }

  /** Registered methods, sorted by name. */
  list(): MethodDefinition<z.ZodType, unknown, C>[] {
    return this.names().map((n) => this.#methods.get(n)!);
  }
}

// ---------------------------------------------------------------------------------------------
// Envelope

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function failure(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}

interface ValidRequest {
  method: string;
  params: unknown;
  /** `undefined` = notification (no response). */
  id: JsonRpcId | undefined;
}

function validateEnvelope(value: unknown): ValidRequest | JsonRpcFailure {
  if (!isPlainObject(value)) return failure(null, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: expected an object' });
  // Answer with the request's id when it is usable, even if something else is wrong, so the client can correlate.
  const hasId = Object.hasOwn(value, 'id');
  const id = hasId && isValidId(value.id) ? value.id : null;
  if (hasId && !isValidId(value.id)) return failure(null, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: id must be a string, number or null' });
  if (value.jsonrpc !== '2.0') return failure(id, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: jsonrpc must be "2.0"' });
  if (typeof value.method !== 'string' || value.method.length === 0 || value.method.length > MAX_METHOD_NAME_LENGTH) {
    return failure(id, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: method must be a non-empty string' });
  }
  if (Object.hasOwn(value, 'params') && (typeof value.params !== 'object' || value.params === null)) {
    return failure(id, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: params must be an object or array' });
  }
  return { method: value.method, params: value.params, id: hasId ? id : undefined };
}

// ---------------------------------------------------------------------------------------------
// Dispatch

/** Options of {@link dispatch} and {@link handleRpcText}. */
export interface DispatchOptions {
  /** Where unexpected handler exceptions are logged (they answer -32603 without details). */
  logger?: ErrorLogger;
  /** Called around every handler invocation; the server uses it to track in-flight work for a clean close(). */
  track?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Runs one already-validated request. Never throws: every failure becomes an error object. */
async function invoke<C>(registry: MethodRegistry<C>, request: ValidRequest, ctx: C, options: DispatchOptions): Promise<{ result: unknown } | { error: JsonRpcErrorObject }> {
  const definition = registry.get(request.method);
  if (definition === undefined) return { error: { code: JSONRPC_METHOD_NOT_FOUND, message: `Method not found: ${request.method.slice(0, 64)}` } };
  if (Array.isArray(request.params)) {
    return { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid params: params must be an object (by-name parameters)', data: { code: 'invalid_params', issues: [] } } };
  }
  const parsed = definition.params.safeParse(request.params ?? {});
  if (!parsed.success) return { error: toJsonRpcError(invalidParams(parsed.error)) };
  const run = async (): Promise<unknown> => definition.handler(parsed.data, ctx);
  try {
    const result = await (options.track ? options.track(run) : run());
    // JSON has no `undefined`; a handler that returns nothing answers null so the response stays a valid success.
    return { result: result === undefined ? null : result };
  } catch (error) {
    return { error: toJsonRpcError(error, options.logger, request.method) };
  }
}

/**
 * Dispatches one parsed JSON value (a request or a batch of at most 100) against `registry` with
 * `ctx` as every handler's context. Returns `null` when nothing must be sent back (notifications
 * only). Never throws: every failure is an error response.
 */
export async function dispatch<C>(registry: MethodRegistry<C>, payload: unknown, ctx: C, options: DispatchOptions = {}): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
  if (Array.isArray(payload)) {
    if (payload.length === 0) return failure(null, { code: JSONRPC_INVALID_REQUEST, message: 'Invalid Request: empty batch' });
    if (payload.length > MAX_BATCH_SIZE) {
      return failure(null, { code: JSONRPC_INVALID_REQUEST, message: `Invalid Request: batch larger than ${MAX_BATCH_SIZE}` });
    }
    const responses = (await dispatchBatch(registry, payload, ctx, options)).map((r) => r.response);
    return responses.length === 0 ? null : responses;
  }
  return dispatchOne(registry, payload, ctx, options);
}

/** Runs a batch within its bounds; each answer comes with its serialised text (measured once). */
async function dispatchBatch<C>(registry: MethodRegistry<C>, batch: unknown[], ctx: C, options: DispatchOptions): Promise<{ response: JsonRpcResponse; text: string }[]> {
  const out: { response: JsonRpcResponse; text: string }[] = [];
  let cost = 0;
  let bytes = 0;
  let stopped: 'cost' | 'size' | null = null;
  for (const [index, entry] of batch.entries()) {
    if (index > 0) await yieldToEventLoop();
    cost += entryCost(entry);
    if (stopped === null && cost > MAX_BATCH_COST) stopped = 'cost';
    let response: JsonRpcResponse | null;
    if (stopped !== null) {
      const envelope = validateEnvelope(entry);
      if ('error' in envelope) response = envelope;
      else if (envelope.id === undefined) response = null;
      else {
        const message =
          stopped === 'cost'
            ? `Not run: the batch exceeds its cost budget (${MAX_BATCH_COST}; a search costs ${SEARCH_COST}). Send this request again, alone or in a later batch.`
            : `Not run: the batch's answer reached ${MAX_BATCH_RESPONSE_BYTES} bytes. Send this request again, alone or in a later batch.`;
        response = failure(envelope.id, { code: DOMAIN_ERROR_CODES.batch_limit, message, data: { code: 'batch_limit', reason: stopped } });
      }
    } else {
      response = await dispatchOne(registry, entry, ctx, options);
    }
    if (response === null) continue;
    const text = serializeResponse(response, options.logger);
    bytes += Buffer.byteLength(text);
    if (stopped === null && bytes >= MAX_BATCH_RESPONSE_BYTES) stopped = 'size';
    out.push({ response, text });
  }
  return out;
}

async function dispatchOne<C>(registry: MethodRegistry<C>, entry: unknown, ctx: C, options: DispatchOptions): Promise<JsonRpcResponse | null> {
  const request = validateEnvelope(entry);
  if ('error' in request) return request;
  const outcome = await invoke(registry, request, ctx, options);
  if (request.id === undefined) return null; // notification: run, never answer (not even errors)
  return 'error' in outcome ? failure(request.id, outcome.error) : { jsonrpc: '2.0', id: request.id, result: outcome.result };
}

/**
 * Serialises a response. A result that cannot be serialised (cycle, BigInt) is a handler bug:
 * it is answered as -32603 for that entry instead of tearing down the connection.
 */
export function serializeResponse(response: JsonRpcResponse | JsonRpcResponse[], logger?: ErrorLogger): string {
  const one = (r: JsonRpcResponse): string => {
    try {
      return JSON.stringify(r);
    } catch (error) {
      return JSON.stringify(failure(r.id, toJsonRpcError(error, logger)));
    }
  };
  return Array.isArray(response) ? `[${response.map(one).join(',')}]` : one(response);
}

/**
 * Parses a text frame (an HTTP body or a WebSocket message) and dispatches it: what the gateway's
 * transports run, for carrying the same protocol over your own. Returns the serialised response, or
 * `null` for notification-only input; never throws (invalid JSON answers -32700).
 */
export async function handleRpcText<C>(registry: MethodRegistry<C>, text: string, ctx: C, options: DispatchOptions = {}): Promise<string | null> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return serializeResponse(failure(null, { code: JSONRPC_PARSE_ERROR, message: 'Parse error' }));
  }
  if (Array.isArray(payload) && payload.length > 0 && payload.length <= MAX_BATCH_SIZE) {
    const answers = await dispatchBatch(registry, payload, ctx, options);
    return answers.length === 0 ? null : `[${answers.map((a) => a.text).join(',')}]`;
  }
  const response = await dispatch(registry, payload, ctx, options);
  return response === null ? null : serializeResponse(response, options.logger);
}

export function notification(method: string, params: unknown): string {
  const message: JsonRpcNotification = { jsonrpc: '2.0', method, params };
  return JSON.stringify(message);
}
