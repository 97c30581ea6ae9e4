/**
 * A scripted rerank server for tests: a real node:http server on 127.0.0.1:0 answering the common
 * rerank APIs — TEI `POST /rerank` ({query, texts} → [{index, score}]) and the Jina/Cohere shape
 * served by vLLM and llama.cpp at `POST /v1/rerank` (and Jina/Cohere at `/rerank` with `documents`)
 * ({model, query, documents, top_n} → {results: [{index, relevance_score}]}). By default every text
 * scores by test-only word overlap with the query (`overlapScore`) — this is NOT a model and its
 * numbers never measure quality. Each request first consumes the next scripted step if there is one
 * (an HTTP error, a delay, a hang, an oversized body); every request is recorded with its parsed
 * body and headers and every text it received is kept, so tests can count requests at the server
 * and look for secrets in what arrived.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startJsonServer } from './json-server.js';

export interface RecordedRerankRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The query and the texts/documents of this request (empty when the body was not a rerank request). */
  query: string;
  texts: string[];
  status: number;
}

export type RerankStep =
  | { status: number; message?: string }
  | { delayMs: number }
  | { hang: true }
  /** Answer with a valid JSON body of at least this many bytes (padding in an ignored field). */
  | { bigBodyBytes: number }
  /** Answer with this raw body (status 200). */
  | { raw: string };

export interface ScriptedRerankOptions {
  /** Scores one text for the query; default `overlapScore`. */
  scoreFor?: (query: string, text: string) => number;
}

export interface ScriptedRerank {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRerankRequest[];
  /** Queue steps consumed by the next requests, in order. */
  script(...steps: RerankStep[]): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Test-only score: the share of the query's words that occur in the text (0…1). */
export function overlapScore(query: string, text: string): number {
  const words = query.toLowerCase().split(/\W+/).filter(Boolean);
  if (words.length === 0) return 0;
  const t = text.toLowerCase();
  return words.filter((w) => t.includes(w)).length / words.length;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

export async function startScriptedRerank(options: ScriptedRerankOptions = {}): Promise<ScriptedRerank> {
  const steps: RerankStep[] = [];
  const scoreFor = options.scoreFor ?? overlapScore;
  const server = await startJsonServer<RecordedRerankRequest>({
    waitTimeoutMs: 5_000,
    record: (req, _res, body) => {
      const texts = Array.isArray(body?.texts) ? body.texts : Array.isArray(body?.documents) ? body.documents.map((d: any) => (typeof d === 'string' ? d : String(d?.text ?? ''))) : [];
      return { path: req.url ?? '', headers: req.headers, body, query: typeof body?.query === 'string' ? body.query : '', texts, status: 0 };
    },
    respond: async (req, res, recorded) => {
      const step = steps.shift();
      if (step && 'hang' in step) return;
      if (step && 'delayMs' in step) await new Promise((r) => setTimeout(r, step.delayMs));
      if (step && 'status' in step) {
        recorded.status = step.status;
        return send(res, step.status, JSON.stringify({ error: { message: step.message ?? `scripted ${step.status}` } }));
      }
      if (step && 'raw' in step) {
        recorded.status = 200;
        return send(res, 200, step.raw);
      }
      if (req.method !== 'POST' || !(recorded.path === '/rerank' || recorded.path === '/v1/rerank')) {
        recorded.status = 404;
        return send(res, 404, JSON.stringify({ error: { message: 'not found' } }));
      }
      const scores = recorded.texts.map((t) => scoreFor(recorded.query, t));
      const ranked = scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score);
      const teiShape = Array.isArray(recorded.body?.texts);
      let body: unknown;
      if (teiShape) body = ranked;
      else {
        const topN = typeof recorded.body?.top_n === 'number' ? recorded.body.top_n : ranked.length;
        body = { model: recorded.body?.model ?? null, results: ranked.slice(0, topN).map((r) => ({ index: r.index, relevance_score: r.score })) };
      }
      if (step && 'bigBodyBytes' in step) body = { ...(Array.isArray(body) ? { results: [] } : (body as object)), padding: 'x'.repeat(step.bigBodyBytes) };
      recorded.status = 200;
      send(res, 200, JSON.stringify(body));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    requests: server.requests,
    script: (...s) => steps.push(...s),
    waitForRequests: server.waitForRequests,
    close: server.close,
  };
}
