/**
 * The workload of `pnpm bench:rpc`, shared by its single-gateway run (rpc-bench.ts) and its
 * PostgreSQL team run (rpc-team.ts): the deterministic synthetic history (projects, sessions,
 * English and Chinese messages), a closed-loop JSON-RPC WebSocket client, and `driveClients`, the
 * mixed search/append loop every client runs until a deadline (the same seeds per client index,
 * so every backend gets the same request sequence).
 */
import { WebSocket } from 'ws';
import { percentile, rng } from './util.js';

/** The seed's shape: projects × sessions × messages. */
export interface SeedShape {
  projects: number;
  sessionsPerProject: number;
  messagesPerSession: number;
}

// ---------------------------------------------------------------------------------------------
// Deterministic synthetic history

export const EN_WORDS = (
  'linker error build cache deploy rollback migration schema index query latency timeout retry socket token auth session project folder ' +
  'release branch merge conflict review test flaky fixture docker kernel memory leak profile trace span metric alert dashboard budget ' +
  'invoice customer refund shipping warehouse inventory forecast roadmap sprint backlog meeting agenda minutes decision owner deadline ' +
  'python typescript rust golang compiler parser lexer grammar unicode emoji tokenizer embedding vector cosine hybrid keyword semantic'
).split(' ');
export const ZH_WORDS = '构建 缓存 部署 回滚 迁移 索引 查询 延迟 超时 重试 会话 项目 文件夹 发布 分支 合并 冲突 测试 内存 泄漏 周报 会议 决定 负责人 截止日期 客户 退款 仓库 库存 预测'.split(' ');

export function sentence(rand: () => number, chinese: boolean): string {
  const n = 6 + Math.floor(rand() * 20);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(chinese ? ZH_WORDS[Math.floor(rand() * ZH_WORDS.length)]! : EN_WORDS[Math.floor(rand() * EN_WORDS.length)]!);
  return chinese ? `${words.join('')}。` : `${words.join(' ')}.`;
}

export interface Seed {
  text: string;
  /** session ids per project id */
  sessionsByProject: Map<string, string[]>;
  messages: number;
}

export function syntheticHistory(options: SeedShape): Seed {
  const rand = rng(20240301);
  const lines: string[] = [];
  const sessionsByProject = new Map<string, string[]>();
  let messages = 0;
  const t0 = Date.parse('2024-01-01T00:00:00Z');
  for (let p = 0; p < options.projects; p++) {
    const projectId = `p_bench${p}`;
    lines.push(JSON.stringify({ kind: 'project', id: projectId, name: `Bench project ${p}` }));
    const ids: string[] = [];
    for (let s = 0; s < options.sessionsPerProject; s++) {
      const sessionId = `bench-${p}-${s}`;
      ids.push(sessionId);
      const startedAt = t0 + (p * options.sessionsPerProject + s) * 3_600_000;
      lines.push(JSON.stringify({ kind: 'session', id: sessionId, project_id: projectId, title: `Bench ${p}/${s}`, started_at: startedAt }));
      for (let m = 0; m < options.messagesPerSession; m++) {
        lines.push(
          JSON.stringify({
            kind: 'message',
            session_id: sessionId,
            external_id: `m${m}`,
            role: m % 2 === 0 ? 'user' : 'assistant',
            content: sentence(rand, rand() < 0.3),
            created_at: startedAt + m * 1000,
          }),
        );
        messages++;
      }
    }
    sessionsByProject.set(projectId, ids);
  }
  return { text: `${lines.join('\n')}\n`, sessionsByProject, messages };
}

// ---------------------------------------------------------------------------------------------
// Client

interface Pending {
  method: string;
  started: bigint;
  resolve: (value: { result?: unknown; error?: { code: number; message: string; data?: { code?: string } } }) => void;
}

export class RpcClient {
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { code: number; message: string } };
      if (typeof message.id !== 'number') return; // event notifications
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      pending.resolve(message);
    });
    ws.on('close', () => {
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        p.resolve({ error: { code: -1, message: 'connection closed', data: { code: 'connection_closed' } } });
      }
    });
  }

  static connect(url: string, token: string): Promise<RpcClient> {
    return new Promise((resolveConnect, rejectConnect) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
      ws.once('open', () => resolveConnect(new RpcClient(ws)));
      ws.once('error', rejectConnect);
    });
  }

  call(method: string, params: unknown): Promise<{ ms: number; result?: unknown; error?: { code: number; message: string; data?: { code?: string } } }> {
    const id = this.#nextId++;
    const started = process.hrtime.bigint();
    return new Promise((resolveCall) => {
      this.#pending.set(id, {
        method,
        started,
        resolve: (value) => resolveCall({ ...value, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
      });
      this.#ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  close(): Promise<void> {
    return new Promise((resolveClose) => {
      if (this.#ws.readyState === WebSocket.CLOSED) return resolveClose();
      this.#ws.once('close', () => resolveClose());
      this.#ws.close();
    });
  }
}

export interface MethodStats {
  latencies: number[];
  errors: Map<string, number>;
}

/** What the clients of one run measured. */
export interface DriveResult {
  total: number;
  elapsedS: number;
  stats: Map<string, MethodStats>;
  acknowledgedAppends: number;
  scopeViolations: number;
  usedModes: Map<string, number>;
}

/**
 * Runs every client closed-loop (one request in flight) until `seconds` have passed: client i
 * works in project i mod P from one of its sessions, sends `searchRatio` searches (30 % Chinese,
 * else two English words) and appends with external id `${externalPrefix}${i}-${n}`; every search
 * hit outside the client's project is counted as a scope violation.
 */
export async function driveClients(input: {
  clients: readonly RpcClient[];
  seed: Seed;
  searchRatio: number;
  semantic: boolean;
  seconds: number;
  externalPrefix: string;
  log: (text: string) => void;
}): Promise<DriveResult> {
  const { seed } = input;
  const projectIds = [...seed.sessionsByProject.keys()];
  const sessionProject = new Map<string, string>();
  for (const [p, ids] of seed.sessionsByProject) for (const id of ids) sessionProject.set(id, p);
  const stats = new Map<string, MethodStats>();
  const statsOf = (method: string): MethodStats => {
    let s = stats.get(method);
    if (!s) stats.set(method, (s = { latencies: [], errors: new Map() }));
    return s;
  };
  let total = 0;
  let acknowledgedAppends = 0;
  let scopeViolations = 0;
  const usedModes = new Map<string, number>();
  const started = Date.now();
  const deadline = started + input.seconds * 1000;
  const progress = setInterval(() => {
    const elapsed = (Date.now() - started) / 1000;
    input.log(`  ${elapsed.toFixed(0).padStart(3)} s  ${String(total).padStart(7)} requests  ${(total / elapsed).toFixed(0).padStart(6)} req/s`);
  }, 1000);
  await Promise.all(
    input.clients.map(async (client, i) => {
      const rand = rng(1000 + i);
      const projectId = projectIds[i % projectIds.length]!;
      const own = seed.sessionsByProject.get(projectId)!;
      const current = own[Math.floor(rand() * own.length)]!;
      let n = 0;
      while (Date.now() < deadline) {
        const isSearch = rand() < input.searchRatio;
        const method = isSearch ? 'search.session_search' : 'session.append';
        const params = isSearch
          ? { sessionId: current, query: rand() < 0.3 ? ZH_WORDS[Math.floor(rand() * ZH_WORDS.length)]! : `${EN_WORDS[Math.floor(rand() * EN_WORDS.length)]} ${EN_WORDS[Math.floor(rand() * EN_WORDS.length)]}`, search_mode: input.semantic ? 'hybrid' : 'keyword', limit: 8 }
          : { sessionId: current, role: n % 2 === 0 ? 'user' : 'assistant', content: sentence(rand, rand() < 0.3), externalId: `${input.externalPrefix}${i}-${n}` };
        n++;
        const response = await client.call(method, params);
        total++;
        const s = statsOf(method);
        s.latencies.push(response.ms);
        if (response.error) {
          const code = response.error.data?.code ?? String(response.error.code);
          s.errors.set(code, (s.errors.get(code) ?? 0) + 1);
          continue;
        }
        if (isSearch) {
          const result = response.result as { error?: { code: string }; used_mode?: string; results?: { session_id: string }[] };
          usedModes.set(String(result.used_mode), (usedModes.get(String(result.used_mode)) ?? 0) + 1);
          if (result.error) s.errors.set(`tool:${result.error.code}`, (s.errors.get(`tool:${result.error.code}`) ?? 0) + 1);
          for (const hit of result.results ?? []) if (sessionProject.get(hit.session_id) !== projectId) scopeViolations++;
        } else {
          acknowledgedAppends++;
        }
      }
    }),
  );
  clearInterval(progress);
  return { total, elapsedS: (Date.now() - started) / 1000, stats, acknowledgedAppends, scopeViolations, usedModes };
}

/** Per method: requests, req/s, p50/p95/p99/max latency and errors by code. */
export function methodReport(stats: Map<string, MethodStats>, elapsedS: number): { methods: Record<string, MethodReport>; errorTotal: number } {
  const methods: Record<string, MethodReport> = {};
  let errorTotal = 0;
  for (const [method, s] of [...stats].sort()) {
    const sorted = [...s.latencies].sort((a, b) => a - b);
    errorTotal += [...s.errors.values()].reduce((a, b) => a + b, 0);
    methods[method] = {
      requests: s.latencies.length,
      perSecond: Number((s.latencies.length / elapsedS).toFixed(1)),
      p50ms: Number(percentile(sorted, 50).toFixed(2)),
      p95ms: Number(percentile(sorted, 95).toFixed(2)),
      p99ms: Number(percentile(sorted, 99).toFixed(2)),
      maxMs: Number((sorted.at(-1) ?? NaN).toFixed(2)),
      errors: Object.fromEntries(s.errors),
    };
  }
  return { methods, errorTotal };
}

/** One method's figures in a report. */
export interface MethodReport {
  requests: number;
  perSecond: number;
  p50ms: number;
  p95ms: number;
  p99ms: number;
  maxMs: number;
  errors: Record<string, number>;
}
