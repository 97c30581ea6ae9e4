/**
 * A small JSON-RPC 2.0 client over HTTP POST (`Authorization: Bearer <token>`) for test setup and
 * assertions against the real gateway (docs/rpc.md). Errors reject with `RpcCallError`, which keeps
 * the numeric code and the stable `data.code` string. Each call has a bounded timeout. Objects are
 * typed by @recall/rpc-contract.
 */
import type { IndexStatus, Message, Project, SearchResult, Session } from '@recall/rpc-contract';

// The gateway's objects are the contract's: one definition for the gateway, the UI and these tests.
export type { IndexStatus, Message, Project, SearchHit, SearchResult, Session } from '@recall/rpc-contract';

export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`${method}: ${message} (${code}${dataCodeOf(data) ? ` ${dataCodeOf(data)}` : ''})`);
    this.name = 'RpcCallError';
  }

  get dataCode(): string | undefined {
    return dataCodeOf(this.data);
  }
}

function dataCodeOf(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'code' in data && typeof (data as { code: unknown }).code === 'string') {
    return (data as { code: string }).code;
  }
  return undefined;
}

export class RpcClient {
  private nextId = 1;

  constructor(
    readonly rpcUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 15_000,
  ) {}

  async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let body: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`${method}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    if (body.error) throw new RpcCallError(method, body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }

  // Typed shortcuts for the calls the tests use most.
  projects(includeArchived = true): Promise<Project[]> {
    return this.call<{ projects: Project[] }>('projects.list', { includeArchived }).then((r) => r.projects);
  }
  session(sessionId: string): Promise<Session> {
    return this.call<Session>('session.get', { sessionId });
  }
  sessions(projectId?: string | null): Promise<Session[]> {
    const params: Record<string, unknown> = { limit: 1000 };
    if (projectId !== undefined) params.projectId = projectId;
    return this.call<{ sessions: Session[] }>('session.list', params).then((r) => r.sessions);
  }
  messages(sessionId: string): Promise<Message[]> {
    return this.call<{ messages: Message[] }>('session.messages', { sessionId }).then((r) => r.messages);
  }
  search(sessionId: string, query: string, search_mode: 'hybrid' | 'keyword' | 'semantic' = 'keyword', limit = 20): Promise<SearchResult> {
    return this.call<SearchResult>('search.session_search', { sessionId, query, search_mode, limit });
  }
  indexStatus(): Promise<IndexStatus> {
    return this.call<IndexStatus>('index.status', {});
  }
}
