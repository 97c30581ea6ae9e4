/**
 * `pnpm bench:rpc` — the gateway load check (a command, not a timed test). Seeds a temp home with a
 * deterministic synthetic history (several projects, English and Chinese text) through the same
 * importer as `recall import`, starts a real gateway on a loopback port, and drives N concurrent
 * WebSocket clients, each closed-loop (one request in flight), mixing `search.session_search`
 * (scoped to the client's current session) and `session.append` for a bounded time. It prints
 * progress once a second, then requests/s, p50/p95/p99 latency per method and every error by code.
 * After the clients stop it closes the gateway and verifies, on the database file, that every
 * acknowledged append is stored (no lost writes), that no search ever returned a session of another
 * project, and that `PRAGMA integrity_check` is ok. Exit code 1 on any error (the goal is 0, and in
 * particular no SQLITE_BUSY surfaced as `busy`).
 *
 * Flags: --seconds N (default 15), --clients N (default 8), --search-ratio R (0-1, default 0.7),
 * --sessions N per project (default 40), --messages N per session (default 30), --json,
 * --search-workers N (default: the gateway's default pool; 0 = searches on the main connection),
 * --compare (run twice in the same process on the same data: first with searches in-process on the
 * main connection — the peer — then with the worker pool, and print the throughput ratio),
 * --postgres / --database URL / --gateways LIST (the PostgreSQL team run of rpc-team.ts: real
 * `recall serve` processes, 1 and 2 gateways on one database, the SQLite gateway as the peer).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { semanticPluginFor } from '@recall/cli';
import { openProfileDatabase, silentLogger, startGateway, type GatewayLogger } from '@recall/gateway-rpc';
import { importJsonlText } from '@recall/importers';
import { BENCH_SEMANTIC_CONFIG, indexSeed } from './semantic-seed.js';
import { driveClients, methodReport, RpcClient, syntheticHistory } from './rpc-workload.js';
import { runTeamRpcBench } from './rpc-team.js';
import { runRpcAb } from './rpc-ab.js';
import { exitOnHelp } from './util.js';

interface BenchOptions {
  seconds: number;
  clients: number;
  /** Index the seed with the built-in model first and send hybrid searches (default keyword-only). */
  semantic: boolean;
  searchRatio: number;
  projects: number;
  sessionsPerProject: number;
  messagesPerSession: number;
  json: boolean;
  searchWorkers: number | undefined;
  compare: boolean;
  /** Another built checkout to run against at the same time (rpc-ab.ts), and its rounds. */
  against: { root: string; rounds: number } | null;
  /** PostgreSQL team run (rpc-team.ts): a throwaway cluster (--postgres) or the given database. */
  team: { database: string | undefined; gateways: number[] } | null;
}

const USAGE = `Usage: pnpm bench:rpc [options]   (node tooling/bench/dist/rpc-bench.js [options])
Gateway load check: N closed-loop WebSocket clients mixing search.session_search and session.append
against a real gateway on loopback; requests/s, p50/p95/p99 per method, errors by code, then lost
writes, cross-project hits and integrity checked on the database file. Exit 1 on any error.
  --seconds N          run time (default 15)
  --clients N          concurrent clients (default 8)
  --search-ratio R     share of searches, 0-1 (default 0.7)
  --sessions N         sessions per project (default 40)
  --messages N         messages per session (default 30)
  --semantic           index the seed with the built-in model first (hybrid search under load)
  --search-workers N   search worker pool size (0 = searches on the main connection)
  --compare            run twice: searches in-process (the peer), then with the worker pool
  --against ROOT       this build's gateway and another built checkout's (ROOT) at the same time,
                       each in its own process with its own seeded home and clients, for
                       --rounds N rounds (default 3); prints the ratio of their requests and of
                       their CPU per request (rpc-ab.ts)
  --rounds N           rounds of --against (default 3)
  --json               print the report as JSON
  --postgres           team run instead: the SQLite gateway (peer), then PostgreSQL with 1 and 2
                       \`recall serve\` processes on one throwaway PostgreSQL 15 + pgvector cluster,
                       clients spread over them, same data and workload; req/s ratios printed
  --database URL       the same team run on this empty PostgreSQL database (or
                       RECALL_BENCH_DATABASE_URL with --postgres)
  --gateways LIST      gateway process counts of the team run, in order (default 1,2)
  -h, --help           print this and exit`;

function parseOptions(argv: string[]): BenchOptions {
  exitOnHelp(USAGE, argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      clients: { type: 'string' },
      'search-ratio': { type: 'string' },
      sessions: { type: 'string' },
      messages: { type: 'string' },
      json: { type: 'boolean' },
      semantic: { type: 'boolean' },
      'search-workers': { type: 'string' },
      against: { type: 'string' },
      rounds: { type: 'string' },
      compare: { type: 'boolean' },
      postgres: { type: 'boolean' },
      database: { type: 'string' },
      gateways: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  const num = (name: string, value: string | undefined, def: number, min: number, max: number): number => {
    if (value === undefined) return def;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  return {
    seconds: num('seconds', values.seconds, 15, 1, 3600),
    clients: Math.floor(num('clients', values.clients, 8, 1, 256)),
    searchRatio: num('search-ratio', values['search-ratio'], 0.7, 0, 1),
    projects: 4,
    sessionsPerProject: Math.floor(num('sessions', values.sessions, 40, 1, 10_000)),
    messagesPerSession: Math.floor(num('messages', values.messages, 30, 1, 10_000)),
    json: values.json === true,
    semantic: values.semantic === true,
    searchWorkers: values['search-workers'] === undefined ? undefined : Math.floor(num('search-workers', values['search-workers'], 0, 0, 64)),
    compare: values.compare === true,
    against: values.against === undefined ? null : { root: values.against, rounds: Math.floor(num('rounds', values.rounds, 3, 1, 100)) },
    team:
      values.postgres || values.database !== undefined || values.gateways !== undefined
        ? {
            database: values.database ?? process.env.RECALL_BENCH_DATABASE_URL ?? undefined,
            gateways: (values.gateways ?? '1,2').split(',').map((g) => Math.floor(num('gateways', g, 1, 1, 8))),
          }
        : null,
  };
}

export async function runRpcBench(options: BenchOptions): Promise<{ ok: boolean; report: Record<string, unknown> }> {
  const home = mkdtempSync(join(tmpdir(), 'recall-bench-'));
  const log = (text: string): void => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  try {
    const seed = syntheticHistory(options);
    const seedStart = Date.now();
    const seedDb = openProfileDatabase(home, 'default');
    const imported = await importJsonlText(seedDb, seed.text);
    const indexed = options.semantic ? await indexSeed(seedDb, log) : null;
    if (indexed) log(`semantic index: ${indexed.chunks} chunks ready in ${(indexed.ms / 1000).toFixed(1)} s (USE-lite; ${indexed.embedded} embedded now, ${indexed.cached} from the cache)`);
    seedDb.close();
    log(`seeded ${imported.projects} projects, ${imported.sessions} sessions, ${imported.messages} messages in ${Date.now() - seedStart} ms (home ${home})`);

    const serverErrors: string[] = [];
    const logger: GatewayLogger = { ...silentLogger, error: (message, meta) => serverErrors.push(`${message} ${meta ? JSON.stringify(meta) : ''}`) };
    const gateway = await startGateway({
      home,
      port: 0,
      uiDir: null,
      logger,
      ...(options.semantic ? { semantic: await semanticPluginFor({ config: { ...BENCH_SEMANTIC_CONFIG } }) } : {}),
      ...(options.searchWorkers === undefined ? {} : { searchWorkers: options.searchWorkers }),
    });
    const workersLabel = options.searchWorkers === 0 || options.semantic ? 'searches in-process on the main connection' : `searches in ${options.searchWorkers ?? 'the default number of'} worker thread(s)`;
    log(`gateway on ${gateway.wsUrl}; ${options.clients} clients for ${options.seconds} s, ${Math.round(options.searchRatio * 100)}% searches, ${workersLabel}`);

    const clients = await Promise.all(Array.from({ length: options.clients }, () => RpcClient.connect(gateway.wsUrl, gateway.token)));
    const cpuBefore = process.cpuUsage();
    const { total, elapsedS, stats, acknowledgedAppends, scopeViolations, usedModes } = await driveClients({ clients, seed, searchRatio: options.searchRatio, semantic: options.semantic, seconds: options.seconds, externalPrefix: 'bench-client', log });
    const cpu = process.cpuUsage(cpuBefore);
    await Promise.all(clients.map((c) => c.close()));
    await gateway.close();

    // After a clean close every acknowledged append must be on disk, and the file must be sound.
    const check = openProfileDatabase(home, 'default');
    const stored = check.raw.prepare("select count(*) from messages where external_id like 'bench-client%'").pluck().get() as number;
    const integrity = check.raw.pragma('integrity_check', { simple: true }) as string;
    check.close();

    const { methods, errorTotal } = methodReport(stats, elapsedS);
    const busy = [...stats.values()].reduce((a, s) => a + (s.errors.get('busy') ?? 0), 0);
    const lostWrites = acknowledgedAppends - stored;
    const report = {
      searchWorkers: options.searchWorkers ?? 'default',
      seconds: Number(elapsedS.toFixed(1)),
      clients: options.clients,
      semantic: options.semantic,
      searchUsedModes: Object.fromEntries(usedModes),
      seeded: { projects: imported.projects, sessions: imported.sessions, messages: imported.messages },
      requests: total,
      requestsPerSecond: Number((total / elapsedS).toFixed(1)),
      // CPU of this whole process (gateway, search workers and clients) per request while the clients
      // ran: steadier than requests/s when something else shares the cores.
      cpuMsPerRequest: Number(((cpu.user + cpu.system) / 1000 / Math.max(1, total)).toFixed(3)),
      methods,
      errors: errorTotal,
      busyErrors: busy,
      scopeViolations,
      acknowledgedAppends,
      storedAppends: stored,
      lostWrites,
      integrityCheck: integrity,
      serverErrors: serverErrors.length,
    };
    const ok = errorTotal === 0 && scopeViolations === 0 && lostWrites === 0 && integrity === 'ok' && serverErrors.length === 0;
    if (options.json) {
      // In --compare mode main() prints both reports as one document.
      if (!options.compare) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      log('');
      log(`${total} requests in ${elapsedS.toFixed(1)} s with ${options.clients} clients: ${report.requestsPerSecond} req/s, ${report.cpuMsPerRequest} ms of CPU per request`);
      for (const [method, m] of Object.entries(methods) as [string, { requests: number; perSecond: number; p50ms: number; p95ms: number; p99ms: number; maxMs: number; errors: Record<string, number> }][]) {
        log(`  ${method.padEnd(22)} ${String(m.requests).padStart(7)} req  ${String(m.perSecond).padStart(7)} req/s  p50 ${m.p50ms} ms  p95 ${m.p95ms} ms  p99 ${m.p99ms} ms  max ${m.maxMs} ms  errors ${JSON.stringify(m.errors)}`);
      }
      log(`errors: ${errorTotal} (busy: ${busy}), scope violations: ${scopeViolations}, appends acknowledged/stored: ${acknowledgedAppends}/${stored}, integrity_check: ${integrity}, server-side errors logged: ${serverErrors.length}`);
      log(`searches answered as (used_mode): ${JSON.stringify(report.searchUsedModes)}${options.semantic ? ' — hybrid requested' : ''}`);
      if (options.semantic && !usedModes.get('hybrid')) log('WARNING: no search ran as hybrid (the semantic source is not wired or not ready): these are keyword figures');
      for (const e of serverErrors.slice(0, 5)) log(`  server: ${e}`);
      const search = methods['search.session_search'] as { p50ms: number; p95ms: number; perSecond: number } | undefined;
      const append = methods['session.append'] as { p50ms: number; p95ms: number } | undefined;
      log(`BENCH-SUMMARY ${JSON.stringify({ bench: options.semantic ? 'rpc-hybrid' : 'rpc', clients: options.clients, ...(options.semantic ? { searches_run_as_hybrid: usedModes.get('hybrid') ?? 0 } : {}), req_s: report.requestsPerSecond, search_p50_ms: search?.p50ms, search_p95_ms: search?.p95ms, append_p95_ms: append?.p95ms, errors: errorTotal, scope_violations: scopeViolations, lost_writes: lostWrites })}`);
      log(ok ? 'OK' : 'FAILED');
    }
    return { ok, report };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(options: BenchOptions): Promise<boolean> {
  if (options.team) {
    if (options.semantic || options.compare || options.json) throw new Error('--postgres / --database / --gateways run keyword searches and print a table: leave out --semantic, --compare and --json');
    return runTeamRpcBench({ ...options, ...options.team });
  }
  if (options.against) {
    if (options.semantic || options.compare || options.json || options.searchWorkers !== undefined) throw new Error('--against runs both gateways with their default search pools and prints a table: leave out --semantic, --compare, --json and --search-workers');
    const { seconds, clients, searchRatio, projects, sessionsPerProject, messagesPerSession } = options;
    return runRpcAb({ against: options.against.root, rounds: options.against.rounds, seconds, clients, searchRatio, projects, sessionsPerProject, messagesPerSession }, (line) => process.stdout.write(`${line}\n`));
  }
  if (!options.compare) return (await runRpcBench(options)).ok;
  // Same process, same data, back to back: the in-process peer first, then the worker pool.
  const peer = await runRpcBench({ ...options, searchWorkers: 0 });
  const pooled = await runRpcBench({ ...options, searchWorkers: options.searchWorkers ?? undefined });
  const ratio = (pooled.report.requestsPerSecond as number) / (peer.report.requestsPerSecond as number);
  const line = `compare: ${peer.report.requestsPerSecond} req/s with searches in-process vs ${pooled.report.requestsPerSecond} req/s with the worker pool = ${ratio.toFixed(2)}x`;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ peer: peer.report, pooled: pooled.report, ratio: Number(ratio.toFixed(2)) }, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${line}\n`);
    const summary = {
      bench: 'rpc-compare',
      clients: options.clients,
      req_s_in_process: peer.report.requestsPerSecond,
      req_s_worker_pool: pooled.report.requestsPerSecond,
      pool_vs_in_process: Number(ratio.toFixed(2)),
      lost_writes: (peer.report.lostWrites as number) + (pooled.report.lostWrites as number),
      scope_violations: (peer.report.scopeViolations as number) + (pooled.report.scopeViolations as number),
    };
    process.stdout.write(`BENCH-SUMMARY ${JSON.stringify(summary)}\n`);
  }
  return peer.ok && pooled.ok;
}

main(parseOptions(process.argv.slice(2))).then(
  (ok) => {
    process.exitCode = ok ? 0 : 1;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
