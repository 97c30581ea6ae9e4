/**
 * One side of `bench:rpc --against ROOT` (rpc-ab.ts), run as a child process: seeds a temp home
 * with the bench's synthetic history through ROOT's importer, starts ROOT's gateway on loopback (a
 * real server with its search worker pool) and connects the clients; then, when the parent says
 * `go`, drives them for the given seconds (this build's workload, so both sides send the same
 * requests) and sends back requests, CPU of this process per request, latencies and the checks
 * (errors, cross-project hits, lost writes, integrity). ROOT is this checkout or another built one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driveClients, methodReport, RpcClient, syntheticHistory, type SeedShape } from './rpc-workload.js';

/** What the parent sends on the child's argv (JSON). */
export interface AbChildInput extends SeedShape {
  root: string;
  clients: number;
  seconds: number;
  searchRatio: number;
}

/** What the child sends back when it has driven its clients. */
export interface AbChildReport {
  requests: number;
  searches: number;
  elapsedS: number;
  cpuMs: number;
  searchP50: number;
  searchP95: number;
  appendP95: number;
  errors: number;
  scopeViolations: number;
  lostWrites: number;
  integrity: string;
}

interface RootApi {
  startGateway(options: Record<string, unknown>): Promise<{ wsUrl: string; token: string; close(): Promise<void> }>;
  openProfileDatabase(home: string, profile: string): { raw: { prepare(sql: string): { pluck(): { get(): unknown } }; pragma(p: string, o: object): unknown }; close(): void };
  silentLogger: Record<string, unknown>;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]!) as AbChildInput;
  const gatewayRpc = (await import(join(input.root, 'packages', 'gateway-rpc', 'dist', 'index.js'))) as RootApi;
  const importers = (await import(join(input.root, 'packages', 'importers', 'dist', 'index.js'))) as { importJsonlText(db: unknown, text: string): Promise<unknown> };
  const home = mkdtempSync(join(tmpdir(), 'recall-rpc-ab-'));
  let report: AbChildReport;
  try {
    const seed = syntheticHistory(input);
    const seedDb = gatewayRpc.openProfileDatabase(home, 'default');
    await importers.importJsonlText(seedDb, seed.text);
    seedDb.close();
    const gateway = await gatewayRpc.startGateway({ home, port: 0, uiDir: null, logger: gatewayRpc.silentLogger });
    const clients = await Promise.all(Array.from({ length: input.clients }, () => RpcClient.connect(gateway.wsUrl, gateway.token)));
    process.send!({ ready: true });
    await new Promise<void>((resolveGo) => process.once('message', () => resolveGo()));
    const cpuBefore = process.cpuUsage();
    const run = await driveClients({ clients, seed, searchRatio: input.searchRatio, semantic: false, seconds: input.seconds, externalPrefix: 'ab-client', log: () => {} });
    const cpu = process.cpuUsage(cpuBefore);
    await Promise.all(clients.map((c) => c.close()));
    await gateway.close();
    const check = gatewayRpc.openProfileDatabase(home, 'default');
    const stored = check.raw.prepare("select count(*) from messages where external_id like 'ab-client%'").pluck().get() as number;
    const integrity = String(check.raw.pragma('integrity_check', { simple: true }));
    check.close();
    const { methods, errorTotal } = methodReport(run.stats, run.elapsedS);
    const search = methods['search.session_search'];
    const append = methods['session.append'];
    report = {
      requests: run.total,
      searches: search?.requests ?? 0,
      elapsedS: run.elapsedS,
      cpuMs: (cpu.user + cpu.system) / 1000,
      searchP50: search?.p50ms ?? NaN,
      searchP95: search?.p95ms ?? NaN,
      appendP95: append?.p95ms ?? NaN,
      errors: errorTotal,
      scopeViolations: run.scopeViolations,
      lostWrites: run.acknowledgedAppends - stored,
      integrity,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  // Sent after the temp home is gone: the parent stops the child once it has the report.
  process.send!({ report });
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exitCode = 1;
    process.disconnect?.();
  },
);
