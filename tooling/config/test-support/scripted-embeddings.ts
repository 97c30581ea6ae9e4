/**
 * A scripted OpenAI-compatible embeddings server for tests: a real node:http server on
 * 127.0.0.1:0 answering `POST /v1/embeddings` the way OpenAI, Ollama, vLLM or TEI do. By default
 * every input gets a deterministic test-only vector (a hashed bag of words, see `testVector`) —
 * this is NOT a model and its numbers never measure retrieval quality. Each request first consumes
 * the next scripted step if there is one (an HTTP error, a delay, a hang, wrong dimensions, a
 * base64 body), and the server can emulate limits: `maxBatch` (413 when more inputs arrive) and
 * `maxInputChars` (400 "input too large" when one input is longer). Every request is recorded with
 * its parsed body and headers, and every embedded text is counted, so tests can assert on
 * `encoding_format`, `dimensions`, batching, and on exactly-once embedding across processes.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startJsonServer } from './json-server.js';

export interface RecordedEmbeddingRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The inputs of this request (empty when the body was not an embeddings request). */
  inputs: string[];
  /** HTTP status the server answered (0 while pending / hanging). */
  status: number;
  aborted: boolean;
}

export type EmbeddingStep =
  /** Answer with an HTTP error and an OpenAI-style error body. */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** Wait, then answer normally (or with `then`). */
  | { delayMs: number }
  /** Never answer; the client's timeout/abort (or close()) ends it. */
  | { hang: true }
  /** Answer with vectors of this length instead. */
  | { dims: number }
  /** Answer with base64 strings, as a server does when the client omitted encoding_format. */
  | { base64: true };

export type EmbeddingEntry = EmbeddingStep | ((request: RecordedEmbeddingRequest, index: number) => EmbeddingStep | null);

export interface ScriptedEmbeddingsOptions {
  dims?: number;
  model?: string;
  /** Inputs per request the server accepts; more → 413. */
  maxBatch?: number;
  /** Characters per input the server accepts; longer → 400 "input too large". */
  maxInputChars?: number;
  /** Delay applied to every successful answer (ms). */
  delayMs?: number;
  /** Computes the vector of one input; defaults to `testVector`. */
  vectorFor?: (text: string, dims: number) => number[];
  /** Returns the vector unnormalised (scaled by 3) to prove the client normalises. */
  unnormalised?: boolean;
}

export interface ScriptedEmbeddings {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedEmbeddingRequest[];
  /** How many times each text was embedded in a successful answer. */
  readonly embedded: Map<string, number>;
  push(...entries: EmbeddingEntry[]): void;
  /** Every later request is answered 503 until `setDown(false)`. */
  setDown(down: boolean): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Deterministic test-only vector: words (lower-cased, Latin runs and single CJK characters) are
 * hashed into buckets, so texts sharing words are similar. Never shipped, never a quality figure.
 */
export function testVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text.toLowerCase().match(/[\p{Script=Han}]|[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const h = createHash('sha256').update(w).digest();
    v[h.readUInt32LE(0) % dims]! += 1;
    v[h.readUInt32LE(4) % dims]! += 0.5;
  }
  if (words.length === 0) v[0] = 1;
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startScriptedEmbeddings(options: ScriptedEmbeddingsOptions = {}): Promise<ScriptedEmbeddings> {
  const dims = options.dims ?? 8;
  const vectorFor = options.vectorFor ?? testVector;
  const queue: EmbeddingEntry[] = [];
  const embedded = new Map<string, number>();
  let down = false;

  function error(res: ServerResponse, recorded: RecordedEmbeddingRequest, status: number, message: string, headers: Record<string, string> = {}): void {
    recorded.status = status;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error' } }));
  }

  async function respond(req: IncomingMessage, res: ServerResponse, recorded: RecordedEmbeddingRequest, index: number): Promise<void> {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/embeddings')) return error(res, recorded, 404, `No route ${req.method} ${req.url}`);
    if (down) return error(res, recorded, 503, 'scripted outage');
    let outDims = dims;
    let base64 = false;
    const entry = queue.shift();
    const step = typeof entry === 'function' ? entry(recorded, index) : entry;
    if (step) {
      if ('status' in step) return error(res, recorded, step.status, step.message ?? `scripted HTTP ${step.status}`, step.headers);
      if ('hang' in step) return;
      if ('delayMs' in step) await sleep(step.delayMs);
      if ('dims' in step) outDims = step.dims;
      if ('base64' in step) base64 = true;
    }
    if (options.maxBatch !== undefined && recorded.inputs.length > options.maxBatch) return error(res, recorded, 413, `too many inputs: ${recorded.inputs.length} > ${options.maxBatch}`);
    if (options.maxInputChars !== undefined && recorded.inputs.some((t) => t.length > options.maxInputChars!)) {
      return error(res, recorded, 400, `input is too large to process: maximum context length is ${options.maxInputChars}`);
    }
    if (options.delayMs) await sleep(options.delayMs);
    if (res.destroyed) return;
    const data = recorded.inputs.map((text, i) => {
      let v = vectorFor(text, dims);
      if (outDims !== dims) v = Array.from({ length: outDims }, (_, k) => v[k % dims]!);
      if (options.unnormalised) v = v.map((x) => x * 3);
      const embedding = base64 ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : v;
      return { object: 'embedding', index: i, embedding };
    });
    recorded.status = 200;
    for (const t of recorded.inputs) embedded.set(t, (embedded.get(t) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data, model: options.model ?? recorded.body?.model ?? 'scripted-embedding', usage: { prompt_tokens: 0, total_tokens: 0 } }));
  }

  const server = await startJsonServer<RecordedEmbeddingRequest>({
    waitTimeoutMs: 10_000,
    record(req, res, body) {
      const input = body?.input;
      const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
      const recorded: RecordedEmbeddingRequest = { path: req.url ?? '', headers: req.headers, body, inputs, status: 0, aborted: false };
      res.on('close', () => {
        if (!res.writableFinished) recorded.aborted = true;
      });
      return recorded;
    },
    respond,
  });
  const { port, requests } = server;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    embedded,
    push: (...entries) => queue.push(...entries),
    setDown: (value) => {
      down = value;
    },
    waitForRequests: server.waitForRequests,
    close: server.close,
  };
}
