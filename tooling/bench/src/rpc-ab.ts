/**
 * `pnpm bench:rpc --against ROOT [--rounds N]`: this build's gateway against another built checkout
 * of the repository (ROOT) under the same load at the same time. Each round starts two child
 * processes (rpc-ab-child.ts), one per build, each with its own temp home seeded with the same
 * synthetic history through its own build's importer, its own gateway and its own clients; when both
 * are ready they drive their clients together for the same seconds. Both share the machine's cores
 * for the whole run, so whatever else runs on the machine slows both alike: the ratio of their
 * requests (and of their CPU per request) is the figure to compare, where separate runs of one build
 * differ by 15–40 % on a loaded machine. Every run is checked as bench:rpc checks it (errors,
 * cross-project hits, lost writes, integrity).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import type { AbChildInput, AbChildReport } from './rpc-ab-child.js';
import { REPO_ROOT } from './util.js';

/** The options of one A/B: the other checkout, rounds, and the bench:rpc workload. */
export interface RpcAbOptions extends Omit<AbChildInput, 'root'> {
  against: string;
  rounds: number;
}

function side(root: string, input: Omit<AbChildInput, 'root'>): { ready: Promise<void>; go(): void; report: Promise<AbChildReport>; stop(): void } {
  const child = fork(fileURLToPath(new URL('./rpc-ab-child.js', import.meta.url)), [JSON.stringify({ ...input, root })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  let onReady: () => void = () => {};
  let onError: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolveReady, rejectReady) => {
    onReady = resolveReady;
    onError = rejectReady;
  });
  const report = new Promise<AbChildReport>((resolveReport, rejectReport) => {
    child.on('message', (message: { ready?: boolean; report?: AbChildReport; error?: string }) => {
      if (message.ready) onReady();
      else if (message.report) resolveReport(message.report);
      else if (message.error) {
        const error = new Error(`${root}: ${message.error}`);
        onError(error);
        rejectReport(error);
      }
    });
    child.on('exit', (code) => {
      const error = new Error(`${root}: the bench child exited with code ${code} before reporting`);
      onError(error);
      rejectReport(error);
    });
  });
  // A side stopped after the other failed rejects too; the caller awaits only what it still needs.
  ready.catch(() => {});
  report.catch(() => {});
  return { ready, go: () => child.send('go'), report, stop: () => void (child.exitCode === null && child.kill()) };
}

const f1 = (n: number): string => n.toFixed(1);

/** Runs the rounds, prints one table row per round and the totals; false when a check failed. */
export async function runRpcAb(options: RpcAbOptions, print: (line: string) => void): Promise<boolean> {
  const { against, rounds, ...workload } = options;
  const roots = [REPO_ROOT, resolve(against)];
  print(`bench:rpc --against ${roots[1]}: ${rounds} round(s) of ${workload.seconds} s, ${workload.clients} clients per gateway, ${Math.round(workload.searchRatio * 100)} % searches, both gateways at once`);
  print('| round | this build req/s | other req/s | req ratio (this / other) | CPU ms per request, this / other | CPU ratio | search p50 this / other | errors, cross-project hits, lost writes (this / other) |');
  print('|---|---|---|---|---|---|---|---|');
  let ok = true;
  const sums = { these: 0, others: 0, cpuThese: 0, cpuOthers: 0 };
  for (let round = 1; round <= rounds; round++) {
    // Which child starts first alternates; the drive itself starts together.
    const order = round % 2 === 1 ? [0, 1] : [1, 0];
    const sides: ReturnType<typeof side>[] = [];
    for (const i of order) sides[i] = side(roots[i]!, workload);
    let reports: AbChildReport[];
    try {
      await Promise.all(sides.map((s) => s.ready));
      for (const s of sides) s.go();
      reports = await Promise.all(sides.map((s) => s.report));
    } finally {
      // One side failed: the other is stopped, not left waiting for its `go`.
      for (const s of sides) s.stop();
    }
    const [mine, other] = reports as [AbChildReport, AbChildReport];
    const rps = (r: AbChildReport): number => r.requests / r.elapsedS;
    const cpu = (r: AbChildReport): number => r.cpuMs / Math.max(1, r.requests);
    const checks = (r: AbChildReport): string => `${r.errors}, ${r.scopeViolations}, ${r.lostWrites}${r.integrity === 'ok' ? '' : ` (integrity: ${r.integrity})`}`;
    for (const r of [mine, other]) if (r.errors || r.scopeViolations || r.lostWrites || r.integrity !== 'ok') ok = false;
    sums.these += mine.requests;
    sums.others += other.requests;
    sums.cpuThese += mine.cpuMs;
    sums.cpuOthers += other.cpuMs;
    print(`| ${round} | ${f1(rps(mine))} | ${f1(rps(other))} | ${(mine.requests / other.requests).toFixed(3)} | ${cpu(mine).toFixed(2)} / ${cpu(other).toFixed(2)} | ${(cpu(mine) / cpu(other)).toFixed(3)} | ${mine.searchP50} / ${other.searchP50} ms | ${checks(mine)} / ${checks(other)} |`);
  }
  const cpuRatio = sums.cpuThese / sums.these / (sums.cpuOthers / sums.others);
  print(`summed over ${rounds} round(s): requests this / other ${(sums.these / sums.others).toFixed(3)}, CPU per request this / other ${cpuRatio.toFixed(3)}`);
  print(`BENCH-SUMMARY ${JSON.stringify({ bench: 'rpc-against', rounds, req_ratio: Number((sums.these / sums.others).toFixed(3)), cpu_per_request_ratio: Number(cpuRatio.toFixed(3)), ok })}`);
  return ok;
}
