/**
 * The body of one search worker thread (started by search-pool.ts): builds the session_search tool
 * once with `openSearchTool()` (search-worker-tool.ts: its own read-only SQLite connection) — or with the factory module
 * named in workerData, which tests use — and answers `{id, args, context}` jobs one at a time with
 * `{id, ok, result}` or `{id, ok: false, error: {message, code}}`. Errors cross the thread boundary
 * as plain data; the pool turns known codes back into typed errors.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type { SearchCallContext, SessionSearchExecutor } from './context.js';
import { openSearchTool, type OpenedSearchTool, type SearchToolInput } from './search-worker-tool.js';

export interface SearchWorkerData extends SearchToolInput {
  /** Absolute path of an ES module exporting `openSearchTool(input)` to use instead (tests only). */
  factoryModule?: string | null;
}

export interface SearchJob {
  id: number;
  args: Record<string, unknown>;
  context: SearchCallContext;
}

export type SearchJobReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { message: string; code?: string } };

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('search-worker must run in a worker thread');
  const data = workerData as SearchWorkerData;
  let opened: OpenedSearchTool;
  try {
    if (data.factoryModule) {
      const factory = (await import(pathToFileURL(data.factoryModule).href)) as { openSearchTool(input: SearchToolInput): OpenedSearchTool };
      opened = factory.openSearchTool(data);
    } else {
      opened = openSearchTool(data);
    }
  } catch (error) {
    port.postMessage({ ready: false, error: (error as Error).message });
    return;
  }
  const tool: SessionSearchExecutor = opened.tool;
  port.postMessage({ ready: true });
  port.on('message', (job: SearchJob | 'close') => {
    if (job === 'close') {
      void Promise.resolve(opened.close()).finally(() => port.close());
      return;
    }
    void (async () => {
      let reply: SearchJobReply;
      try {
        reply = { id: job.id, ok: true, result: await tool.execute(job.args, job.context) };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        reply = { id: job.id, ok: false, error: { message: (error as Error).message ?? String(error), ...(typeof code === 'string' ? { code } : {}) } };
      }
      port.postMessage(reply);
    })();
  });
}

void main();
