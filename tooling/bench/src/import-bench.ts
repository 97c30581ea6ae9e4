/**
 * `pnpm bench:import` — import throughput and memory on a generated Claude Code folder (a command,
 * not a timed test). Generates N messages as Claude Code transcripts (sessions of --per-session
 * messages, spread over 10 repository folders, alternating user/assistant with a tool call every
 * tenth message) plus the same messages as one recall-jsonl file, then measures in one run:
 *
 * 1. `recall import --from claude-code` (importTranscripts, --project-per-folder) into a fresh profile;
 * 2. the same import again (everything already present: the cost of an idempotent re-run);
 * 3. the peer: the recall-jsonl importer on the same messages into another fresh profile.
 *
 * Memory is sampled every 200 ms during each import (V8 heap used and RSS): a streaming import keeps
 * the heap flat whatever the size (SQLite's page cache and memory-mapped reads show in RSS only).
 * Prints a Markdown table and a `BENCH-SUMMARY {json}` line for `pnpm bench`.
 *
 * Flags: --messages N (default 1M; 200k, 1m accepted), --per-session N (default 1000), --keep
 * (leave the temp folder), --no-peer.
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { importJsonlFile, importTranscripts, transcriptFiles } from '@recall/importers';
import { exitOnHelp } from './util.js';

const USAGE = `Usage: pnpm bench:import [options]   (node tooling/bench/dist/import-bench.js [options])
Import throughput and memory on a generated Claude Code folder: the claude-code importer, its
idempotent re-run, and the recall-jsonl importer on the same messages (the peer).
  --messages N       messages to generate (default 1m; 200k, 1m accepted)
  --per-session N    messages per session (default 1000)
  --keep             keep the temp folder
  --no-peer          skip the recall-jsonl peer
  -h, --help         print this and exit`;

function count(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`not a count: ${text}`);
  const unit = m[2]!.toLowerCase();
  return Math.round(Number(m[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1));
}

const WORDS = 'retry backoff jitter deploy linker cache index queue schema migration token budget latency shard replica timeout config build test release rollback'.split(' ');

function text(i: number): string {
  // Deterministic, varied, ~150 characters.
  let x = (i * 2654435761) >>> 0;
  const words: string[] = [];
  for (let k = 0; k < 22; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[x % WORDS.length]!);
  }
  return `${words.join(' ')} #${i}`;
}

function write(stream: WriteStream, line: string): Promise<void> | null {
  return stream.write(line) ? null : new Promise((r) => stream.once('drain', () => r()));
}

async function generate(dir: string, messages: number, perSession: number): Promise<{ folder: string; jsonl: string; bytes: number }> {
  const folder = join(dir, 'projects');
  const jsonlPath = join(dir, 'same-messages.jsonl');
  const jsonl = createWriteStream(jsonlPath);
  const sessions = Math.ceil(messages / perSession);
  let bytes = 0;
  for (let s = 0; s < sessions; s++) {
    const repo = `/work/bench/repo${s % 10}`;
    const sub = join(folder, repo.replace(/\//g, '-'));
    mkdirSync(sub, { recursive: true });
    const sessionId = `b0000000-0000-4000-8000-${String(s).padStart(12, '0')}`;
    const file = join(sub, `${sessionId}.jsonl`);
    const out = createWriteStream(file);
    const pj = `p_bench${s % 10}`;
    if (s < 10) await write(jsonl, `${JSON.stringify({ kind: 'project', id: pj, name: `repo${s % 10}` })}\n`);
    await write(jsonl, `${JSON.stringify({ kind: 'session', id: sessionId, project_id: pj, source: 'claude-code', cwd: repo, started_at: 1_756_000_000_000 + s * 1000 })}\n`);
    const n = Math.min(perSession, messages - s * perSession);
    for (let m = 0; m < n; m++) {
      const i = s * perSession + m;
      const role = m % 2 === 0 ? 'user' : 'assistant';
      const ts = new Date(1_756_000_000_000 + i * 1000).toISOString();
      const body = text(i);
      const message =
        role === 'user'
          ? { role, content: body }
          : { id: `msg_${i}`, type: 'message', role, model: 'claude-sonnet-4-5', content: m % 10 === 1 ? [{ type: 'text', text: body }, { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `grep -rn ${WORDS[i % WORDS.length]} src` } }] : [{ type: 'text', text: body }] };
      const line = `${JSON.stringify({ parentUuid: m === 0 ? null : `u${i - 1}`, isSidechain: false, userType: 'external', cwd: repo, sessionId, version: '2.0.14', gitBranch: 'main', type: role, message, uuid: `u${i}`, timestamp: ts })}\n`;
      bytes += Buffer.byteLength(line);
      const p1 = write(out, line);
      if (p1) await p1;
      const p2 = write(jsonl, `${JSON.stringify({ kind: 'message', session_id: sessionId, external_id: `u${i}`, role, content: body, created_at: ts })}\n`);
      if (p2) await p2;
    }
    await new Promise<void>((r) => out.end(() => r()));
  }
  await new Promise<void>((r) => jsonl.end(() => r()));
  return { folder, jsonl: jsonlPath, bytes };
}

interface Run {
  name: string;
  seconds: number;
  /** CPU seconds of this process (user + system): the figure that a loaded machine distorts least. */
  cpuSeconds: number;
  messages: number;
  maxHeapMiB: number;
  maxRssMiB: number;
  heapAt: number[];
}

async function measured(name: string, fn: (progress: (fraction: number) => void) => Promise<number>): Promise<Run> {
  let maxHeap = 0;
  let maxRss = 0;
  const heapAt: number[] = [];
  let nextMark = 0.25;
  const sample = () => {
    const m = process.memoryUsage();
    maxHeap = Math.max(maxHeap, m.heapUsed);
    maxRss = Math.max(maxRss, m.rss);
  };
  const timer = setInterval(sample, 200);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const messages = await fn((fraction) => {
    sample();
    while (fraction >= nextMark && nextMark <= 1) {
      heapAt.push(process.memoryUsage().heapUsed / 2 ** 20);
      nextMark += 0.25;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  sample();
  return { name, seconds, cpuSeconds: (used.user + used.system) / 1e6, messages, maxHeapMiB: maxHeap / 2 ** 20, maxRssMiB: maxRss / 2 ** 20, heapAt };
}

async function main(): Promise<void> {
  exitOnHelp(USAGE);
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { messages: { type: 'string' }, 'per-session': { type: 'string' }, keep: { type: 'boolean' }, 'no-peer': { type: 'boolean' } },
  });
  const messages = count(values.messages ?? '1m');
  const perSession = count(values['per-session'] ?? '1000');
  const dir = mkdtempSync(join(tmpdir(), 'recall-import-bench-'));
  try {
    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`generating ${messages.toLocaleString('en')} messages in ${Math.ceil(messages / perSession)} Claude Code sessions …`);
    const gen = await generate(dir, messages, perSession);
    console.log(`  ${(gen.bytes / 2 ** 20).toFixed(0)} MiB of transcripts, ${(statSync(gen.jsonl).size / 2 ** 20).toFixed(0)} MiB recall-jsonl`);
    const files = transcriptFiles('claude-code', gen.folder);
    const home = join(dir, 'home');
    const runs: Run[] = [];

    const db = openProfileDatabase(home, 'cc');
    try {
      runs.push(
        await measured('claude-code import (--project-per-folder)', async (progress) => {
          const s = await importTranscripts(db, 'claude-code', files, { mapping: { kind: 'per-folder' }, onProgress: (p) => progress(p.bytesDone / Math.max(1, p.bytesTotal)) });
          if (s.errorCount > 0) throw new Error(`${s.errorCount} line errors`);
          console.log(`  imported ${s.messages.toLocaleString('en')} messages, ${s.sessions} sessions, ${s.projectsCreated} projects`);
          return s.messages;
        }),
      );
      runs.push(
        await measured('claude-code re-import (all present)', async (progress) => {
          const s = await importTranscripts(db, 'claude-code', files, { mapping: { kind: 'per-folder' }, onProgress: (p) => progress(p.bytesDone / Math.max(1, p.bytesTotal)) });
          if (s.messages !== 0) throw new Error(`re-import inserted ${s.messages}`);
          return s.skipped;
        }),
      );
    } finally {
      db.close();
    }
    if (!values['no-peer']) {
      const peerDb = openProfileDatabase(home, 'jsonl');
      try {
        runs.push(
          await measured('peer: recall-jsonl import (same messages)', async (progress) => {
            const s = await importJsonlFile(peerDb, gen.jsonl, { onProgress: (p) => progress(p.bytes / Math.max(1, p.totalBytes ?? 1)) });
            if (s.errorCount > 0) throw new Error(`${s.errorCount} line errors`);
            return s.messages;
          }),
        );
      } finally {
        peerDb.close();
      }
    }

    console.log('');
    console.log('| run | messages | wall s | messages/s (wall) | CPU s | messages/CPU-s | heap at 25/50/75/100 % (MiB) | max heap MiB | max RSS MiB |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of runs) {
      console.log(
        `| ${r.name} | ${r.messages.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${Math.round(r.messages / r.seconds).toLocaleString('en')} | ${r.cpuSeconds.toFixed(1)} | ${Math.round(r.messages / r.cpuSeconds).toLocaleString('en')} | ${r.heapAt.map((h) => h.toFixed(0)).join(' / ')} | ${r.maxHeapMiB.toFixed(0)} | ${r.maxRssMiB.toFixed(0)} |`,
      );
    }
    const [cc, again, peer] = runs;
    const rate = cc!.messages / cc!.seconds;
    const summary: Record<string, unknown> = {
      bench: 'import',
      messages,
      import_msg_s: Math.round(rate),
      import_msg_per_cpu_s: Math.round(cc!.messages / cc!.cpuSeconds),
      reimport_msg_s: Math.round(again!.messages / again!.seconds),
      max_heap_mib: Number(cc!.maxHeapMiB.toFixed(0)),
      max_rss_mib: Number(cc!.maxRssMiB.toFixed(0)),
    };
    if (peer) {
      summary.peer_recall_jsonl_msg_s = Math.round(peer.messages / peer.seconds);
      summary.import_vs_recall_jsonl = Number((rate / (peer.messages / peer.seconds)).toFixed(2));
      summary.import_vs_recall_jsonl_cpu = Number((peer.cpuSeconds / peer.messages / (cc!.cpuSeconds / cc!.messages)).toFixed(2));
    }
    console.log(`\ngoal: ≥ 20,000 messages/s with a flat heap — measured ${Math.round(rate).toLocaleString('en')} messages/s wall, ${Math.round(cc!.messages / cc!.cpuSeconds).toLocaleString('en')} per CPU-second, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
  } finally {
    if (values.keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
