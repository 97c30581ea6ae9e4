/**
 * Many gateways, one database (issue 19 item 5), with real processes only: three `recall serve`
 * children (the built CLI, each with its own home and token) on one throwaway PostgreSQL, reached
 * through RECALL_DATABASE_URL (a URL with a password, so no `ps` shows it). WebSocket clients spread
 * over the three append, search and move concurrently for a bounded time; in the middle one gateway
 * is killed with SIGKILL and started again, and later the PostgreSQL server itself is restarted.
 * Asserted: every acknowledged append is stored exactly once with its text (appends carry an
 * external id, so a retry after an unanswered call can never store it twice); no search ever
 * returns a conversation of another project; while the database is down clients get the typed
 * retryable `storage_unavailable` (-32045) and afterwards succeed again, on every gateway, none of
 * which exited; a move made through gateway 1 reaches a client of gateway 2 (and 3) as an event
 * within 1 s; the password appears in no output and no answer.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { assertCliBuilt, cleanupTemp, startCli, tempDir } from './cli-helpers.js';

const SECRET = 'tEam-Pw-7731';
const RUN_MS = 14_000;
const RETRYABLE = -32045;

interface RpcError {
  code: number;
  message: string;
  data?: { code?: string; retryable?: boolean };
}
type Answer = { result: any; error?: undefined } | { result?: undefined; error: RpcError } | { closed: true };

/** A JSON-RPC client over one WebSocket; `events` holds every change event with its arrival time. */
class Client {
  readonly events: { at: number; type: string }[] = [];
  #ws: WebSocket | null = null;
  #next = 1;
  #pending = new Map<number, (answer: Answer) => void>();
  constructor(
    readonly port: number,
    readonly token: string,
  ) {}
  get open(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }
  async connect(): Promise<void> {
    const ws = new WebSocket(`ws://127.0.0.1:${this.port}/rpc`, { headers: { authorization: `Bearer ${this.token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => {});
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; method?: string; params?: { type: string }; result?: unknown; error?: RpcError };
      if (msg.method === 'event') this.events.push({ at: Date.now(), type: msg.params!.type });
      else if (typeof msg.id === 'number') {
        this.#pending.get(msg.id)?.(msg.error ? { error: msg.error } : { result: msg.result });
        this.#pending.delete(msg.id);
      }
    });
    ws.on('close', () => {
      for (const done of this.#pending.values()) done({ closed: true });
      this.#pending.clear();
    });
    this.#ws = ws;
  }
  call(method: string, params: unknown): Promise<Answer> {
    if (!this.open) return Promise.resolve({ closed: true });
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#ws!.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }
  close(): void {
    this.#ws?.terminate();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const T0 = Date.now();
const phase = (what: string) => process.env.TEAM_TEST_TRACE && console.error(`[team ${Date.now() - T0} ms] ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Gateway {
  home: string;
  port: number;
  token: string;
  output: () => string;
  child: ReturnType<typeof startCli>['child'];
  exit: ReturnType<typeof startCli>['exit'];
}

let cluster: ThrowawayPostgres;
let url: string;
const outputs: (() => string)[] = [];

async function serve(home: string, port: number): Promise<Gateway> {
  const run = startCli(['serve', '--home', home, '--port', String(port), '--no-ui'], { env: { RECALL_DATABASE_URL: url } });
  let text = '';
  run.child.stdout!.on('data', (d: string) => (text += d));
  run.child.stderr!.on('data', (d: string) => (text += d));
  await run.firstLine;
  const output = () => text;
  outputs.push(output);
  return { home, port, token: readFileSync(join(home, 'gateway.token'), 'utf8').trim(), output, child: run.child, exit: run.exit };
}

beforeAll(async () => {
  assertCliBuilt();
  cluster = await startThrowawayPostgres();
  url = cluster.createDatabase('team').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  cleanupTemp();
});

it('three gateways on one PostgreSQL: no lost write, no cross-project result, moves seen elsewhere, a gateway and the database restarted mid-run', async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  const homes = ports.map(() => tempDir('recall-team-'));
  // The first one migrates the empty database; the others find nothing to do (advisory lock).
  const gateways = await Promise.all(homes.map((home, i) => serve(home, ports[i]!)));
  phase('gateways up');

  // Three projects with three conversations each, every text marked with its project's word.
  const admin = new Client(gateways[0]!.port, gateways[0]!.token);
  await admin.connect();
  const ok = async (method: string, params: unknown) => {
    const answer = await admin.call(method, params);
    if (!('result' in answer) || answer.result === undefined) throw new Error(`${method}: ${JSON.stringify(answer)}`);
    return answer.result;
  };
  const MARK = ['kestrelword', 'otterword', 'lynxword'];
  const projects: string[] = [];
  const sessionsOf: string[][] = [];
  for (const [p, mark] of MARK.entries()) {
    const project = await ok('projects.create', { name: `Team ${p}` });
    projects.push(project.id);
    sessionsOf.push([]);
    for (let s = 0; s < 3; s++) {
      const session = await ok('session.create', { projectId: project.id, title: `${mark} ${s}`, messages: [{ role: 'user', content: `${mark} opening ${s}` }] });
      sessionsOf[p]!.push(session.id);
    }
  }
  const mover = (await ok('session.create', { projectId: projects[0], title: 'the moving one', messages: [{ role: 'user', content: 'nothing to find here' }] })).id as string;
  // index.status counts through the adapter's StorageStats: 10 sessions, each one conversation with one message.
  const status = await ok('index.status', {});
  expect(status.keyword).toEqual({ messages: 10, sessions: 10, conversations: 10 });
  expect(status.semantic).toMatchObject({ status: 'disabled', reason: 'not_configured' });
  expect(status.semantic.projects.map((p: { projectId: string }) => p.projectId).sort()).toEqual([...projects].sort());
  // Chat, export and purges run on the ports too: an export answers, a purge of nothing hidden
  // removes nothing, and chat without a model says so (chat_not_configured, not storage_unsupported).
  expect(await ok('conversations.export', { sessionId: mover, format: 'markdown' })).toMatchObject({ sessions: 1, messages: 1 });
  expect(await ok('conversations.purge_hidden', { sessionId: mover })).toMatchObject({ sessionIds: [mover], messages: 0, scrubbed: false });
  const chatAnswer = await admin.call('chat.send', { sessionId: mover, content: 'hello' });
  expect('error' in chatAnswer ? chatAnswer.error : undefined).toMatchObject({ data: { code: 'chat_not_configured' } });
  // import.jsonl (the desktop's "Load demo data") imports through the storage ports on PostgreSQL.
  const imported = await ok('import.jsonl', {
    text: `${JSON.stringify({ kind: 'session', id: 'imp-team-1', title: 'imported' })}\n${JSON.stringify({ kind: 'message', session_id: 'imp-team-1', external_id: 'a', role: 'user', content: 'imported over the wire' })}\n`,
  });
  expect(imported).toMatchObject({ sessions: 1, messages: 1 });
  admin.close();
  phase('seeded');

  const acked: { sessionId: string; id: number; externalId: string; content: string }[] = [];
  const crossProject: unknown[] = [];
  const unexpected: unknown[] = [];
  const retryableAt: number[] = [];
  const successAt: number[] = [];
  const messages: string[] = [];
  const moves = { done: 0 };
  let stopAt = Date.now() + RUN_MS;

  /** Calls until answered (reconnecting after a killed gateway, waiting out a retryable error); null when the run ended first. */
  const until = async (client: Client, method: string, params: unknown): Promise<any> => {
    while (Date.now() < stopAt + 10_000) {
      if (!client.open) {
        await client.connect().catch(() => sleep(200));
        continue;
      }
      const answer = await client.call(method, params);
      if ('closed' in answer) continue;
      if (answer.error) {
        messages.push(answer.error.message);
        if (answer.error.code === RETRYABLE && answer.error.data?.retryable === true && answer.error.data.code === 'storage_unavailable') {
          retryableAt.push(Date.now());
          await sleep(150);
          continue;
        }
        unexpected.push({ method, error: answer.error });
        return null;
      }
      successAt.push(Date.now());
      return answer.result;
    }
    return null;
  };

  const worker = async (index: number): Promise<void> => {
    const gw = gateways[index % 3]!;
    const client = new Client(gw.port, gw.token);
    let n = 0;
    while (Date.now() < stopAt) {
      const p = (index + n) % 3;
      const roll = (index * 7 + n * 13) % 10;
      n++;
      if (roll < 5) {
        const sessionId = sessionsOf[p]![n % 3]!;
        const externalId = `w${index}-${n}`;
        const content = `${MARK[p]} note ${externalId}`;
        const stored = await until(client, 'session.append', { sessionId, role: 'user', content, externalId });
        if (stored) acked.push({ sessionId, id: stored.id, externalId, content });
      } else if (roll < 9) {
        const result = await until(client, 'search.session_search', { projectId: projects[p], query: MARK[p] });
        for (const hit of result?.results ?? []) {
          if (!sessionsOf[p]!.includes(hit.session_id) || MARK.some((m, q) => q !== p && JSON.stringify(hit).includes(m))) crossProject.push(hit);
        }
      } else {
        const moved = await until(client, 'session.project.set', { sessionId: mover, projectId: projects[n % 2] });
        if (moved) moves.done++;
      }
    }
    client.close();
  };

  const started = Date.now();
  const workers = Promise.all(Array.from({ length: 6 }, (_, i) => worker(i)));
  // A gateway dies with SIGKILL mid-run and comes back on its port.
  await sleep(3_000);
  gateways[2]!.child.kill('SIGKILL');
  await gateways[2]!.exit;
  gateways[2] = await serve(homes[2]!, ports[2]!);
  phase('gateway 3 restarted');
  // Then the database restarts under all three.
  await sleep(Math.max(0, started + 7_000 - Date.now()));
  const downAt = Date.now();
  await cluster.restart({ downMs: 1_500 });
  const backAt = Date.now();
  phase('database restarted');
  stopAt = Math.max(stopAt, backAt + 3_000);
  await workers;
  phase(`workers done: ${acked.length} acked, ${retryableAt.length} retryable, ${unexpected.length} unexpected`);

  if (unexpected.length > 0) phase(outputs.map((o) => o()).join('\n---\n').split('\n').filter((l) => /error/i.test(l)).slice(0, 20).join('\n'));
  expect(unexpected).toEqual([]);
  expect(crossProject).toEqual([]);
  expect(acked.length).toBeGreaterThan(20);
  expect(moves.done).toBeGreaterThan(0);
  // Typed retryable errors while it was down, successes after it was back.
  expect(retryableAt.filter((t) => t >= downAt).length).toBeGreaterThan(0);
  expect(successAt.filter((t) => t > backAt).length).toBeGreaterThan(0);

  for (const [i, gw] of gateways.entries()) if (gw.child.exitCode !== null || gw.child.signalCode !== null) phase(`gateway ${i + 1} exited:\n${gw.output().slice(-3000)}`);
  // A move through gateway 1 reaches clients of gateways 2 and 3 within a second (quiet now).
  const watchers = [new Client(gateways[1]!.port, gateways[1]!.token), new Client(gateways[2]!.port, gateways[2]!.token)];
  const mover1 = new Client(gateways[0]!.port, gateways[0]!.token);
  await Promise.all([...watchers, mover1].map((c) => c.connect()));
  await sleep(500);
  const latencies: number[] = [];
  for (let i = 0; i < 3; i++) {
    for (const w of watchers) w.events.length = 0;
    const t = Date.now();
    const moved = await until(mover1, 'session.project.set', { sessionId: mover, projectId: projects[(i + 1) % 3] });
    expect(moved?.projectId).toBe(projects[(i + 1) % 3]);
    for (const w of watchers) {
      const deadline = Date.now() + 2_000;
      while (!w.events.some((e) => e.type === 'sessions.changed') && Date.now() < deadline) await sleep(10);
      const seen = w.events.find((e) => e.type === 'sessions.changed');
      latencies.push(seen ? seen.at - t : Infinity);
    }
    await sleep(200);
  }
  expect(Math.max(...latencies)).toBeLessThan(1_000);

  // Every acknowledged append is stored once, with its text, read through another gateway.
  const reader = watchers[0]!;
  const stored = new Map<number, { sessionId: string; content: string; externalId: string | null }>();
  for (const sessionId of sessionsOf.flat()) {
    const page = await until(reader, 'session.messages', { sessionId, limit: 10_000 });
    for (const m of page.messages) stored.set(m.id, { sessionId, content: m.content, externalId: m.externalId });
  }
  const lost = acked.filter((a) => stored.get(a.id)?.content !== a.content || stored.get(a.id)?.sessionId !== a.sessionId);
  expect(lost).toEqual([]);
  const byExternalId = new Map<string, number>();
  for (const m of stored.values()) if (m.externalId) byExternalId.set(m.externalId, (byExternalId.get(m.externalId) ?? 0) + 1);
  expect([...byExternalId.values()].filter((count) => count > 1)).toEqual([]);

  for (const c of [...watchers, mover1]) c.close();
  // Every gateway kept serving; none shows the password anywhere.
  for (const gw of gateways) expect(gw.child.exitCode).toBeNull();
  for (const gw of gateways) gw.child.kill('SIGTERM');
  await Promise.all(gateways.map((gw) => gw.exit));
  for (const output of outputs) expect(output()).not.toContain(SECRET);
  for (const message of messages) expect(message).not.toContain(SECRET);
  console.log(
    `team gateways: ${acked.length} appends acknowledged, ${moves.done} moves, ${retryableAt.length} retryable answers, move → event on another gateway max ${Math.max(...latencies)} ms, run ${Date.now() - started} ms`,
  );
}, 150_000);
