/**
 * `pnpm bench:rpc --postgres | --database URL [--gateways 1,2]`: the gateway load check on a
 * PostgreSQL team database with one and with several gateway processes, the SQLite gateway of the
 * same data as the peer in the same run. Every gateway is a real `recall serve` child process (the
 * built CLI, its own temp home and token; PostgreSQL through RECALL_DATABASE_URL, so the URL is in
 * no `ps` line); the clients live in this process and are spread round-robin over the gateways of a
 * run. The data is the single-gateway bench's synthetic history, imported into a SQLite profile
 * and copied into the (empty) database with `recall migrate`, so both backends hold the same rows;
 * the workload is driveClients' mixed search/append loop with the same seeds per client. After each
 * run the gateways are stopped (SIGTERM: they finish in-flight calls) and the database is checked:
 * every acknowledged append stored exactly once, no search hit outside the client's project.
 * Prints one table with req/s, latencies and ratios to the SQLite peer and to one gateway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { importJsonlText } from '@recall/importers';
import { openPostgres } from '@recall/store-postgres';
import { benchPostgres } from './pg-cluster.js';
import { driveClients, methodReport, RpcClient, syntheticHistory, type MethodReport, type SeedShape } from './rpc-workload.js';
import { machine, REPO_ROOT } from './util.js';

const CLI = join(REPO_ROOT, 'apps', 'cli', 'bin', 'recall.js');

/** Options of a team run (parsed by rpc-bench.ts). */
export interface TeamOptions extends SeedShape {
  seconds: number;
  clients: number;
  searchRatio: number;
  /** Gateway counts to run on PostgreSQL, in order (e.g. [1, 2]). */
  gateways: number[];
  /** A given empty database, or undefined for a throwaway cluster. */
  database: string | undefined;
}

/** The environment of a child: this one's without any RECALL_ setting, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('RECALL_') && v !== undefined) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Children not yet exited (killed in the end if a run failed half-way). */
const live = new Set<ChildProcess>();

interface Child {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  live.add(child);
  void exited.then(() => live.delete(child));
  return { child, output: () => text, exited };
}

interface Gateway extends Child {
  port: number;
  token: string;
  home: string;
}

/** `recall serve --port 0 --no-ui` in a fresh home; resolves once it printed its launch URL. */
async function serve(env: NodeJS.ProcessEnv, home = mkdtempSync(join(tmpdir(), 'recall-bench-gw-'))): Promise<Gateway> {
  const run = start(['serve', '--home', home, '--port', '0', '--no-ui'], env);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /^http:\/\/127\.0\.0\.1:(\d+)\//m.exec(run.output());
      if (m) {
        clearInterval(timer);
        resolve(Number(m[1]));
      }
    }, 50);
    void run.exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`recall serve exited (${code}) before it was ready: ${run.output().slice(-2000)}`));
    });
  });
  return { ...run, port, home, token: readFileSync(join(home, 'gateway.token'), 'utf8').trim() };
}

async function stop(gateway: Gateway): Promise<number | null> {
  gateway.child.kill('SIGTERM');
  return gateway.exited;
}

interface RunReport {
  label: string;
  backend: 'sqlite' | 'postgres';
  gateways: number;
  reqPerSecond: number;
  methods: Record<string, MethodReport>;
  errors: number;
  scopeViolations: number;
  acknowledged: number;
  stored: number;
  duplicates: number;
  exitCodes: (number | null)[];
  load: [number, number];
}

/** Runs the mixed workload against `gateways`, clients spread round-robin, then stops them. */
async function runOn(label: string, backend: RunReport['backend'], gateways: Gateway[], options: TeamOptions, seed: ReturnType<typeof syntheticHistory>, count: (prefix: string) => Promise<{ stored: number; distinct: number }>, log: (t: string) => void): Promise<RunReport> {
  const load0 = loadavg()[0]!;
  const clients = await Promise.all(Array.from({ length: options.clients }, (_, i) => RpcClient.connect(`ws://127.0.0.1:${gateways[i % gateways.length]!.port}/rpc`, gateways[i % gateways.length]!.token)));
  log(`${label}: ${options.clients} clients over ${gateways.length} gateway process(es) for ${options.seconds} s (load ${load0.toFixed(1)})`);
  const prefix = `bench-${label.replace(/\W+/g, '')}-client`;
  const driven = await driveClients({ clients, seed, searchRatio: options.searchRatio, semantic: false, seconds: options.seconds, externalPrefix: prefix, log: () => {} });
  await Promise.all(clients.map((c) => c.close()));
  const exitCodes = await Promise.all(gateways.map(stop));
  const { methods, errorTotal } = methodReport(driven.stats, driven.elapsedS);
  const { stored, distinct } = await count(prefix);
  const report: RunReport = {
    label,
    backend,
    gateways: gateways.length,
    reqPerSecond: Number((driven.total / driven.elapsedS).toFixed(1)),
    methods,
    errors: errorTotal,
    scopeViolations: driven.scopeViolations,
    acknowledged: driven.acknowledgedAppends,
    stored,
    duplicates: stored - distinct,
    exitCodes,
    load: [load0, loadavg()[0]!],
  };
  log(`${label}: ${report.reqPerSecond} req/s, errors ${errorTotal}, appends acknowledged/stored ${report.acknowledged}/${stored}, scope violations ${report.scopeViolations}, exit codes ${exitCodes.join(',')}`);
  return report;
}

/** The whole team run; true when every check held. */
export async function runTeamRpcBench(options: TeamOptions): Promise<boolean> {
  const log = (text: string) => void process.stdout.write(`${text}\n`);
  const server = await benchPostgres(options.database);
  const home = mkdtempSync(join(tmpdir(), 'recall-bench-team-'));
  const homes: string[] = [home];
  try {
    log(`bench:rpc on PostgreSQL — ${new Date().toISOString()} — ${machine()}`);
    log(`PostgreSQL: ${server.label}`);
    const seed = syntheticHistory(options);
    const seedDb = openProfileDatabase(home, 'default');
    const imported = await importJsonlText(seedDb, seed.text);
    seedDb.close();
    log(`seeded ${imported.projects} projects, ${imported.sessions} sessions, ${imported.messages} messages into SQLite`);
    const pgEnv = childEnv({ RECALL_DATABASE_URL: server.url });
    const migrate = start(['migrate', '--from', home, '--json'], pgEnv);
    if ((await migrate.exited) !== 0) throw new Error(`recall migrate failed: ${migrate.output().slice(-2000)}`);
    log('copied into PostgreSQL with recall migrate');

    const pgdb = await openPostgres(server.url, { maxConnections: 2 });
    const countPg = async (prefix: string) => {
      const row = (await pgdb.pool.query('select count(*)::int as n, count(distinct (session_id, external_id))::int as d from messages where external_id like $1', [`${prefix}%`])).rows[0];
      return { stored: row.n as number, distinct: row.d as number };
    };
    const countSqlite = async (prefix: string) => {
      const db = openProfileDatabase(home, 'default');
      try {
        const row = db.raw.prepare('select count(*) as n, count(distinct session_id || char(31) || external_id) as d from messages where external_id like ?').get(`${prefix}%`) as { n: number; d: number };
        return { stored: row.n, distinct: row.d };
      } finally {
        db.close();
      }
    };
    const reports: RunReport[] = [];
    reports.push(await runOn('sqlite-1', 'sqlite', [await serve(childEnv({}), home)], options, seed, countSqlite, log));
    for (const n of options.gateways) {
      const gateways: Gateway[] = [];
      // One after the other: the first migrates nothing (recall migrate did), the rest find it done.
      for (let i = 0; i < n; i++) gateways.push(await serve(pgEnv));
      homes.push(...gateways.map((g) => g.home));
      reports.push(await runOn(`postgres-${n}`, 'postgres', gateways, options, seed, countPg, log));
    }
    await pgdb.close();

    const peer = reports[0]!;
    const onePg = reports.find((r) => r.backend === 'postgres' && r.gateways === 1);
    const cell = (m: MethodReport | undefined) => (m ? `${m.p50ms} / ${m.p95ms} ms` : '–');
    log('');
    log(`| bench:rpc, ${options.clients} clients, ${Math.round(options.searchRatio * 100)} % searches, ${options.seconds} s per run | gateway processes | req/s | vs SQLite | vs 1 PG gateway | search p50 / p95 | append p50 / p95 | errors | lost / duplicated writes | cross-project hits | load avg (start → end) |`);
    log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of reports) {
      const lost = r.acknowledged - (r.stored - r.duplicates);
      log(`| ${r.backend === 'sqlite' ? 'SQLite (peer)' : 'PostgreSQL'} | ${r.gateways} | ${r.reqPerSecond} | ${(r.reqPerSecond / peer.reqPerSecond).toFixed(2)} | ${onePg && r.backend === 'postgres' ? (r.reqPerSecond / onePg.reqPerSecond).toFixed(2) : '–'} | ${cell(r.methods['search.session_search'])} | ${cell(r.methods['session.append'])} | ${r.errors} | ${lost} / ${r.duplicates} | ${r.scopeViolations} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`);
    }
    const ok = reports.every((r) => r.errors === 0 && r.scopeViolations === 0 && r.acknowledged === r.stored && r.duplicates === 0 && r.exitCodes.every((c) => c === 0));
    log(`BENCH-SUMMARY ${JSON.stringify({ bench: 'rpc-team', clients: options.clients, runs: reports.map((r) => ({ backend: r.backend, gateways: r.gateways, req_s: r.reqPerSecond, errors: r.errors, lost_writes: r.acknowledged - (r.stored - r.duplicates), scope_violations: r.scopeViolations })) })}`);
    log(ok ? 'OK' : 'FAILED');
    return ok;
  } finally {
    for (const child of live) child.kill('SIGKILL');
    for (const h of homes) rmSync(h, { recursive: true, force: true });
    server.stop();
  }
}
