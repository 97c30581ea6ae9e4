/**
 * `pnpm bench:index [--messages 20k] [--dims 384,512,1024] [--growth-chunks 100k] [--append-ms 4000] [--keep]`
 * measures the semantic index's own costs (no model: embedding speed is the provider's business):
 *  1. chunking throughput (chunks/s, MB/s) over generated English/Chinese messages;
 *  2. pipeline throughput — plan → claim (lease) → "embed" → re-checked write — in chunks/s with the
 *     bench's own INSTANT embedder (a fixed unit vector per text length; bench-only, not a model, never
 *     a quality figure), against the same-run peer of plain INSERTs of the same rows in one transaction;
 *  3. database growth per 100k chunks for 384/512/1024 dimensions (file bytes after a checkpoint,
 *     per chunk vs the raw Float32 bytes) and the backup time of the file with and without them;
 *  4. backfill resume time after a crash (leases of a dead process left behind): open → first batch written;
 *  5. write-lock hold time: every write transaction of the worker timed (p50/p99/max), and the latency
 *     of single-message appends made by a concurrent process during the backfill vs the same appends
 *     with the worker idle (same-run peer).
 * Prints Markdown tables and one `BENCH-SUMMARY {json}` line. A command, not a test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessages, bulkWrite, createProject, createSession } from '@recall/store';
import { l2normalize, type EmbeddingProvider, type Fingerprint } from '@recall/semantic';
import { chunkText, fingerprintFields, vectorToBlob, WRITE_GAP_MS } from '@recall/semantic/internal';
import { claimChunks, completeChunks, enableProject, ensureFingerprint, planDirtySessions, releaseDeadLeases } from '@recall/semantic/sqlite/internal';
import { arg, num } from './bench-args.js';
import { exitOnHelp, rng, syntheticMessage } from './util.js';

exitOnHelp(`Usage: pnpm bench:index [options]   (node tooling/bench/dist/index-bench.js [options])
The semantic index's own costs (no model): chunking, plan → claim → write throughput vs plain
INSERTs, database growth per 100k chunks, backfill resume time, write-lock hold time.
  --messages N         generated messages (default 20k)
  --dims LIST          dimensions for the growth part (default 384,512,1024)
  --growth-chunks N    chunks per growth measurement (default 100k)
  --append-ms N        concurrent-append window in ms (default 4000)
  --keep               keep the temp folder
  -h, --help           print this and exit`);

const MESSAGES = num(arg('messages') || '20k');
const DIMS = (arg('dims') || '384,512,1024').split(',').map(num);
const GROWTH_CHUNKS = num(arg('growth-chunks') || '100k');
const APPEND_MS = num(arg('append-ms') || '4000');
const KEEP = arg('keep') !== undefined;
const CHUNKER = { maxInputTokens: 512, charsPerToken: 3 };
const BATCH = 64;

/** 60 % English, 40 % Chinese; lengths 40-4000 characters (a long tail of long assistant answers). */
const message = (r: () => number): string => syntheticMessage(r, 4000);

/** BENCH-ONLY instant embedder: no model, no network; a unit vector per text (not a quality figure). */
function instantEmbedder(dims: number): EmbeddingProvider {
  return {
    info: { provider: 'openai-compatible', endpoint: 'bench:instant', model: 'instant', dims, maxInputTokens: CHUNKER.maxInputTokens, charsPerToken: CHUNKER.charsPerToken, maxBatch: BATCH, remote: false, languages: 'model-dependent' },
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(dims);
        v[t.length % dims] = 1;
        v[(t.length * 7) % dims]! += 0.5;
        return l2normalize(v);
      });
    },
    async close() {},
  };
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (v: number) => `${v.toFixed(2)} ms`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
function fileBytes(db: RecallDatabase): number {
  db.raw.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(db.path).size;
}

/** Seeds one project with `count` messages over sessions of 50; returns the project id. */
function seed(db: RecallDatabase, count: number, seedValue: number): { projectId: string; texts: string[] } {
  const r = rng(seedValue);
  const p = createProject(db, { name: `bench-${seedValue}` });
  const texts: string[] = [];
  bulkWrite(db, () => {
    for (let done = 0; done < count; ) {
      const s = createSession(db, { projectId: p.id });
      const batch = Array.from({ length: Math.min(50, count - done) }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: message(r) }));
      for (const m of batch) texts.push(m.content);
      appendMessages(db, s.id, batch);
      done += batch.length;
    }
  });
  return { projectId: p.id, texts };
}

interface TxTimes {
  plan: number[];
  claim: number[];
  complete: number[];
}

/** Plan → claim → instant embed → complete until nothing is left; every write transaction timed. */
async function backfill(db: RecallDatabase, fp: Fingerprint, provider: EmbeddingProvider, owner: string, times: TxTimes, stopAfterBatches = Infinity): Promise<number> {
  let written = 0;
  let batches = 0;
  const gap = () => new Promise((r) => setTimeout(r, WRITE_GAP_MS));
  for (;;) {
    // The same gaps between write transactions as SemanticWorker.runBatch.
    await gap();
    let t = performance.now();
    const plan = planDirtySessions(db, { fingerprint: fp, chunker: CHUNKER, roles: ['user', 'assistant'], maxTransactions: 1 });
    times.plan.push(performance.now() - t);
    await gap();
    t = performance.now();
    const claimed = claimChunks(db, { fingerprint: fp, owner, limit: BATCH, leaseMs: 60_000, maxAttempts: 5 });
    times.claim.push(performance.now() - t);
    if (claimed.length === 0 && !plan.more && plan.sessionsPlanned === 0) return written;
    if (claimed.length === 0) continue;
    const vectors = await provider.embed(claimed.map((c) => c.text));
    t = performance.now();
    written += completeChunks(db, owner, claimed.map((chunk, i) => ({ chunk, vector: vectors[i]! }))).written;
    times.complete.push(performance.now() - t);
    if (++batches >= stopAfterBatches) return written;
  }
}

function appendChild(dbPath: string, sessionId: string, durationMs: number): Promise<number[]> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./append-child.js', import.meta.url)), dbPath, sessionId, String(durationMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`append child exited ${code}`)))));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-index-bench-'));
  const summary: Record<string, unknown> = { bench: 'index' };
  console.log(`# bench:index — ${new Date().toISOString()}`);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`messages: ${MESSAGES.toLocaleString('en')} (60 % English / 40 % Chinese, 40-4000 chars); chunker: ${CHUNKER.maxInputTokens} tokens, ${CHUNKER.charsPerToken} chars/token; batch ${BATCH}`);
  console.log('embedder: the bench\'s own INSTANT in-process embedder (no model, no network) — these are index costs, not model speed or quality\n');
  try {
    // 1. chunking
    const db = openDatabase(join(dir, 'pipeline.db'));
    const { projectId, texts } = seed(db, MESSAGES, 1);
    let t = performance.now();
    let chunks = 0;
    let chars = 0;
    for (const text of texts) {
      chunks += chunkText(text, CHUNKER).length;
      chars += text.length;
    }
    const chunkSec = (performance.now() - t) / 1000;
    console.log('| stage | items | time | rate |');
    console.log('|---|---|---|---|');
    console.log(`| chunking | ${chunks.toLocaleString('en')} chunks from ${texts.length.toLocaleString('en')} messages | ${chunkSec.toFixed(2)} s | ${Math.round(chunks / chunkSec).toLocaleString('en')} chunks/s, ${(chars / 2 ** 20 / chunkSec).toFixed(1)} MiB/s |`);

    // 2. pipeline with the instant embedder, and the plain-INSERT peer
    const provider = instantEmbedder(384);
    const fp = ensureFingerprint(db, fingerprintFields(provider.info));
    enableProject(db, projectId, provider.info.endpoint);
    const times: TxTimes = { plan: [], claim: [], complete: [] };
    t = performance.now();
    const written = await backfill(db, fp, provider, 'bench:1:pipeline', times);
    const pipeSec = (performance.now() - t) / 1000;
    const peerDb = openDatabase(join(dir, 'peer.db'));
    const peerFp = ensureFingerprint(peerDb, fingerprintFields({ ...provider.info, endpoint: 'bench:peer' }));
    peerDb.raw.exec("insert into projects (id, name, slug) values ('p', 'p', 'p'); insert into sessions (id, project_id) values ('s', 'p')");
    const rows = db.raw.prepare('select message_id, chunk_index, start, "end", content_hash, vector from semantic_chunks').all() as { message_id: number; chunk_index: number; start: number; end: number; content_hash: string; vector: Buffer }[];
    const msgIns = peerDb.raw.prepare("insert into messages (id, session_id, role, content) values (?, 's', 'user', 'x')");
    peerDb.raw.transaction(() => {
      for (const id of new Set(rows.map((r) => r.message_id))) msgIns.run(id);
    })();
    t = performance.now();
    const peerIns = peerDb.raw.prepare("insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, \"end\", content_hash, chunker_version, vector, status) values (?, ?, 's', ?, ?, ?, ?, 1, ?, 'ready')");
    peerDb.raw.transaction(() => {
      for (const r of rows) peerIns.run(peerFp.id, r.message_id, r.chunk_index, r.start, r.end, r.content_hash, r.vector);
    })();
    const peerSec = (performance.now() - t) / 1000;
    peerDb.close();
    console.log(`| pipeline (plan → lease → instant embed → re-checked write), 384-d | ${written.toLocaleString('en')} chunks | ${pipeSec.toFixed(2)} s | ${Math.round(written / pipeSec).toLocaleString('en')} chunks/s |`);
    console.log(`| peer: plain INSERT of the same rows, one transaction | ${rows.length.toLocaleString('en')} chunks | ${peerSec.toFixed(2)} s | ${Math.round(rows.length / peerSec).toLocaleString('en')} chunks/s |`);
    summary.chunking_chunks_s = Math.round(chunks / chunkSec);
    summary.pipeline_chunks_s = Math.round(written / pipeSec);
    summary.pipeline_vs_plain_insert = Number((pipeSec / peerSec).toFixed(1));

    // 5. lock hold times of the worker's transactions (from the backfill above)
    console.log('\nwrite transactions of the worker during that backfill (each is one BEGIN IMMEDIATE; the provider call is outside all of them):');
    console.log('| transaction | n | p50 | p99 | max |');
    console.log('|---|---|---|---|---|');
    for (const [name, v] of Object.entries(times)) console.log(`| ${name} | ${v.length} | ${ms(pct(v, 50))} | ${ms(pct(v, 99))} | ${ms(Math.max(...v))} |`);
    const all = [...times.plan, ...times.claim, ...times.complete];
    summary.worker_tx_p99_ms = Number(pct(all, 99).toFixed(2));

    // 5b. concurrent appends from another process: idle worker (peer) vs during a backfill
    const appendSession = createSession(db, { projectId: null });
    const idle = await appendChild(db.path, appendSession.id, APPEND_MS);
    db.raw.exec('delete from semantic_chunks');
    db.raw.prepare('update semantic_projects set planned_fingerprint_id = null').run();
    const busyTimes: TxTimes = { plan: [], claim: [], complete: [] };
    const during = appendChild(db.path, appendSession.id, APPEND_MS);
    const stopAt = Date.now() + APPEND_MS;
    let duringWritten = 0;
    while (Date.now() < stopAt) {
      const n = await backfill(db, fp, provider, 'bench:1:concurrent', busyTimes, 20);
      duringWritten += n;
      if (n === 0) {
        db.raw.exec('delete from semantic_chunks');
        db.raw.prepare('update semantic_projects set planned_fingerprint_id = null').run();
      }
    }
    const busy = await during;
    console.log(`\nsingle-message appends by a concurrent process (store.appendMessages, one transaction each) for ${APPEND_MS} ms:`);
    console.log('| worker | appends | p50 | p99 | max |');
    console.log('|---|---|---|---|---|');
    console.log(`| idle (peer) | ${idle.length} | ${ms(pct(idle, 50))} | ${ms(pct(idle, 99))} | ${ms(Math.max(...idle))} |`);
    console.log(`| backfilling (${duringWritten.toLocaleString('en')} chunks written meanwhile) | ${busy.length} | ${ms(pct(busy, 50))} | ${ms(pct(busy, 99))} | ${ms(Math.max(...busy))} |`);
    summary.append_p99_idle_ms = Number(pct(idle, 99).toFixed(2));
    summary.append_p99_backfill_ms = Number(pct(busy, 99).toFixed(2));
    summary.append_p99_backfill_vs_idle = Number((pct(busy, 99) / Math.max(0.001, pct(idle, 99))).toFixed(1));

    // 4. resume after a crash: half done, a dead process's leases left behind
    db.raw.exec('delete from semantic_chunks');
    db.raw.prepare('update semantic_projects set planned_fingerprint_id = null').run();
    await backfill(db, fp, provider, 'bench:1:before-crash', { plan: [], claim: [], complete: [] }, Math.ceil(written / BATCH / 2));
    claimChunks(db, { fingerprint: fp, owner: `${hostname()}:2147483646:deadbeef`, limit: BATCH * 4, leaseMs: 3_600_000, maxAttempts: 5 });
    db.close();
    t = performance.now();
    const reopened = openDatabase(join(dir, 'pipeline.db'));
    const released = releaseDeadLeases(reopened, 'bench:1:after-crash');
    const first = await backfill(reopened, fp, provider, 'bench:1:after-crash', { plan: [], claim: [], complete: [] }, 1);
    const resumeMs = performance.now() - t;
    const rest = await backfill(reopened, fp, provider, 'bench:1:after-crash', { plan: [], claim: [], complete: [] });
    const totalMs = performance.now() - t;
    const ready = reopened.raw.prepare("select count(*) from semantic_chunks where status = 'ready'").pluck().get() as number;
    console.log('\nresume after a crash (half the backfill done, a dead process holding leases on 256 chunks):');
    console.log('| open + release dead leases + first batch written | rest of the backfill | leases released | chunks ready at the end |');
    console.log('|---|---|---|---|');
    console.log(`| ${ms(resumeMs)} (${first} chunks) | ${((totalMs - resumeMs) / 1000).toFixed(2)} s (${rest} chunks) | ${released} | ${ready.toLocaleString('en')} of ${written.toLocaleString('en')} |`);
    summary.resume_first_batch_ms = Number(resumeMs.toFixed(1));
    reopened.close();

    // 3. DB growth per GROWTH_CHUNKS chunks per dimension, and backup time
    console.log(`\ndatabase growth per ${GROWTH_CHUNKS.toLocaleString('en')} chunks (file bytes after a WAL checkpoint; 20 k messages of ~400 chars underneath):`);
    console.log('| dims | raw vector bytes | file growth | bytes per chunk | overhead vs raw vector | backup without → with chunks |');
    console.log('|---|---|---|---|---|---|');
    for (const dims of DIMS) {
      const g = openDatabase(join(dir, `growth-${dims}.db`));
      g.raw.exec("insert into projects (id, name, slug) values ('p', 'p', 'p'); insert into sessions (id, project_id) values ('s', 'p')");
      const messageIns = g.raw.prepare("insert into messages (session_id, role, content) values ('s', 'user', ?)");
      const r = rng(dims);
      g.raw.transaction(() => {
        for (let i = 0; i < 20_000; i++) messageIns.run(message(() => r() * 0.45));
      })();
      const before = fileBytes(g);
      let tb = performance.now();
      await g.raw.backup(join(dir, `backup-${dims}-a.db`));
      const backupBefore = performance.now() - tb;
      const gfp = ensureFingerprint(g, fingerprintFields({ provider: 'openai-compatible', endpoint: 'bench', model: `m${dims}`, dims }));
      const ins = g.raw.prepare("insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, \"end\", content_hash, chunker_version, vector, status) values (?, ?, 's', ?, 0, 100, ?, 1, ?, 'ready')");
      const v = new Float32Array(dims);
      g.raw.transaction(() => {
        for (let i = 0; i < GROWTH_CHUNKS; i++) {
          for (let k = 0; k < dims; k++) v[k] = r() - 0.5;
          ins.run(gfp.id, 1 + (i % 20_000), Math.floor(i / 20_000), 'f'.repeat(64), vectorToBlob(l2normalize(v)));
        }
      })();
      const after = fileBytes(g);
      tb = performance.now();
      await g.raw.backup(join(dir, `backup-${dims}-b.db`));
      const backupAfter = performance.now() - tb;
      g.close();
      const grow = after - before;
      console.log(`| ${dims} | ${mib(GROWTH_CHUNKS * dims * 4)} | ${mib(grow)} | ${Math.round(grow / GROWTH_CHUNKS).toLocaleString('en')} | ×${(grow / (GROWTH_CHUNKS * dims * 4)).toFixed(2)} | ${(backupBefore / 1000).toFixed(2)} s → ${(backupAfter / 1000).toFixed(2)} s |`);
      summary[`growth_mib_per_100k_${dims}d`] = Number(((grow / GROWTH_CHUNKS) * 100_000 / 2 ** 20).toFixed(1));
    }
    console.log(`\nBENCH-SUMMARY ${JSON.stringify(summary)}`);
  } finally {
    if (KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
