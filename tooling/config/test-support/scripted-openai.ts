/**
 * A scripted OpenAI-compatible chat-completions server for tests: a real node:http server on
 * 127.0.0.1:0 answering `POST /v1/chat/completions`, streamed (`stream: true`, server-sent events
 * with content and tool_calls deltas split over several chunks, then `data: [DONE]`) or as one JSON
 * completion. Each request consumes the next step of the script — a final text, tool calls, an
 * HTTP error, a raw (malformed) body, or a stream that hangs until the client goes away — or a
 * function computing the step from the request (e.g. quoting the tool result it was sent). Every
 * request is recorded with its parsed body and headers, so tests assert on the tools offered, the
 * history and the tool results the gateway sent back; no mocks, the gateway's real `openai` client
 * talks HTTP to it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startJsonServer } from './json-server.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (null when it was not JSON). */
  body: any;
  /** Set when the client closed the connection before the response ended (an aborted request). */
  aborted: boolean;
  /** Set when the response was completely written. */
  finished: boolean;
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** A JSON text as the model would write it, or an object to be serialised. */
  arguments: string | Record<string, unknown>;
}

export type ScriptStep =
  /** A final answer, streamed in `chunks` pieces (default 3), `delayMs` apart (default 0). */
  | { text: string; chunks?: number; delayMs?: number }
  /** Tool calls (optionally preceded by some text), argument JSON split over several chunks. */
  | { toolCalls: ScriptedToolCall[]; text?: string }
  /** An HTTP error with an OpenAI-style error body. */
  | { status: number; message?: string; body?: string }
  /** A 200 response with an arbitrary body (malformed SSE/JSON). */
  | { raw: string; contentType?: string }
  /** Headers and the optional text deltas are sent, then the response never ends. */
  | { hang: true; text?: string };

export type ScriptEntry = ScriptStep | ((request: RecordedRequest, index: number) => ScriptStep);

export interface ScriptedOpenAI {
  /** Base URL to configure, ending in /v1. */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Appends steps to the script. */
  push(...entries: ScriptEntry[]): void;
  /** Resolves once `count` requests have been received. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MODEL = 'scripted-model';

function split(text: string, parts: number): string[] {
  if (text === '' || parts <= 1) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function argsText(args: ScriptedToolCall['arguments']): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writeStream(res: ServerResponse, step: ScriptStep): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(chunk({ role: 'assistant', content: '' }));
  if ('hang' in step) {
    if (step.text) res.write(chunk({ content: step.text }));
    return; // never ends; the client's abort (or close()) closes it
  }
  if ('toolCalls' in step) {
    if (step.text) res.write(chunk({ content: step.text }));
    step.toolCalls.forEach((call, index) => {
      res.write(chunk({ tool_calls: [{ index, id: call.id ?? `call_scripted_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of split(argsText(call.arguments), 3)) res.write(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    res.write(chunk({}, 'tool_calls'));
  } else if ('text' in step) {
    for (const piece of split(step.text, step.chunks ?? 3)) {
      if (step.delayMs) await sleep(step.delayMs);
      if (res.destroyed) return;
      res.write(chunk({ content: piece }));
    }
    res.write(chunk({}, 'stop'));
  }
  res.end('data: [DONE]\n\n');
}

function writeJson(res: ServerResponse, step: ScriptStep): void {
  let message: Record<string, unknown>;
  let finish = 'stop';
  if ('toolCalls' in step) {
    finish = 'tool_calls';
    message = {
      role: 'assistant',
      content: step.text ?? null,
      tool_calls: step.toolCalls.map((c, i) => ({ id: c.id ?? `call_scripted_${i}`, type: 'function', function: { name: c.name, arguments: argsText(c.arguments) } })),
    };
  } else message = { role: 'assistant', content: 'text' in step ? step.text : '' };
  const body = JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion', created: 1_700_000_000, model: MODEL, choices: [{ index: 0, message, finish_reason: finish }] });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}

export async function startScriptedOpenAI(script: ScriptEntry[] = []): Promise<ScriptedOpenAI> {
  const queue = [...script];
  async function respond(req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest, index: number): Promise<void> {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
      return;
    }
    const entry = queue.shift();
    if (entry === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the test script is exhausted', type: 'server_error' } }));
      return;
    }
    const step = typeof entry === 'function' ? entry(recorded, index) : entry;
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json' });
      res.end(step.body ?? JSON.stringify({ error: { message: step.message ?? `scripted HTTP ${step.status}`, type: 'server_error' } }));
      return;
    }
    if ('raw' in step) {
      res.writeHead(200, { 'content-type': step.contentType ?? 'text/event-stream' });
      res.end(step.raw);
      return;
    }
    if (recorded.body?.stream === true) await writeStream(res, step);
    else writeJson(res, step);
  }

  const server = await startJsonServer<RecordedRequest>({
    waitTimeoutMs: 5_000,
    record(req, res, body) {
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, aborted: false, finished: false };
      res.on('close', () => {
        if (!res.writableFinished) recorded.aborted = true;
      });
      res.on('finish', () => {
        recorded.finished = true;
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
    push: (...entries) => queue.push(...entries),
    waitForRequests: server.waitForRequests,
    close: server.close,
  };
}

/** The tool messages a recorded request sent back to the model, parsed. */
export function toolResultsIn(request: RecordedRequest): { tool_call_id: string; result: any }[] {
  const messages: any[] = request.body?.messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => ({ tool_call_id: m.tool_call_id, result: JSON.parse(m.content) }));
}

/** The last tool result a request carried (the one the model is answering). */
export function lastToolResult(request: RecordedRequest): any {
  const all = toolResultsIn(request);
  return all[all.length - 1]?.result;
}
