/**
 * `pnpm bench:backup [--sizes 100k,1m] [--dims 384] [--keep]` measures what the semantic vectors
 * do to backups: for each size it seeds one profile database (generated English/Chinese messages
 * through the store's own write path, so the keyword index is real, and one ready semantic chunk
 * per message with a Float32 vector of `--dims`, written as plain INSERTs like bench:index's peer),
 * then times `backupDatabase` (the code behind `recall backup`) with the derived index (VACUUM
 * INTO) and without it (`--without-index`: no keyword index rows, no chunks or vectors), and the
 * restore of the lean backup (`restoreDatabaseFile`, which rebuilds the keyword index). Prints a
 * Markdown table and one `BENCH-SUMMARY {json}` line. A command, not a test.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessages, backupDatabase, bulkWrite, createProject, createSession, restoreDatabaseFile } from '@recall/store';
import { arg, num } from './bench-args.js';
import { exitOnHelp, machine, rng, syntheticMessage } from './util.js';

exitOnHelp(`Usage: pnpm bench:backup [options]   (node tooling/bench/dist/backup-bench.js [options])
Backup time and size of a profile with and without the derived index (keyword index rows, semantic
chunks and vectors), and the restore time of the lean backup (which rebuilds the keyword index).
  --sizes LIST   messages per database (default 100k,1m; one ready chunk per message)
  --dims N       vector dimensions (default 384)
  --keep         keep the temp folder
  -h, --help     print this and exit`);

const SIZES = (arg('sizes') || '100k,1m').split(',').map(num);
const DIMS = num(arg('dims') || '384');
const KEEP = arg('keep') !== undefined;

/** 60 % English, 40 % Chinese; 40-2000 characters, most of them short (a chat's turns). */
const message = (r: () => number): string => syntheticMessage(r, 2000);

function fileBytes(path: string): number {
  return statSync(path).size;
}
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Messages in sessions of 50 over 10 projects, committed 20k at a time; then one chunk per message. */
function seed(db: RecallDatabase, count: number, dims: number, log: (line: string) => void): void {
  const r = rng(count);
  const projects = Array.from({ length: 10 }, (_, i) => createProject(db, { name: `bench-${i}` }).id);
  const t0 = performance.now();
  for (let done = 0; done < count; ) {
    bulkWrite(db, () => {
      const end = Math.min(count, done + 20_000);
      while (done < end) {
        const s = createSession(db, { projectId: projects[Math.floor(r() * projects.length)]! });
        const batch = Array.from({ length: Math.min(50, end - done) }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: message(r) }));
        appendMessages(db, s.id, batch);
        done += batch.length;
      }
    });
    if (done % 200_000 === 0) log(`  seeded ${done.toLocaleString('en')} messages (${sec(performance.now() - t0)})`);
  }
  // Vectors: plain INSERTs of ready chunks (the index's own pipeline is bench:index's subject).
  db.raw.prepare("insert into semantic_fingerprints (id, key, provider, endpoint, model, dims, chunker_version) values (1, 'bench', 'openai-compatible', 'bench:instant', 'instant', ?, 1)").run(dims);
  db.raw.exec("insert into semantic_projects (project_id, enabled, endpoint, planned_fingerprint_id) select id, 1, 'bench:instant', 1 from projects");
  const insert = db.raw.prepare("insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, \"end\", content_hash, chunker_version, vector, status) values (1, ?, ?, 0, 0, ?, 'h', 1, ?, 'ready')");
  const page = db.raw.prepare('select id, session_id as sessionId, length(content) as len from messages where id > ? order by id limit 10000');
  const v = new Float32Array(dims);
  let last = 0;
  for (;;) {
    const rows = page.all(last) as { id: number; sessionId: string; len: number }[];
    if (rows.length === 0) break;
    db.raw.transaction(() => {
      for (const row of rows) {
        let norm = 0;
        for (let i = 0; i < dims; i++) norm += (v[i] = r() - 0.5) ** 2;
        for (let i = 0; i < dims; i++) v[i]! /= Math.sqrt(norm);
        insert.run(row.id, row.sessionId, row.len, Buffer.from(v.buffer.slice(0)));
      }
    })();
    last = rows[rows.length - 1]!.id;
  }
  db.raw.pragma('wal_checkpoint(TRUNCATE)');
  log(`  seeded ${count.toLocaleString('en')} messages and chunks in ${sec(performance.now() - t0)}`);
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'recall-backup-bench-'));
  const log = (line: string) => console.error(line);
  const summary: Record<string, unknown> = { bench: 'backup', dims: DIMS };
  console.log(`# bench:backup — ${new Date().toISOString()}`);
  console.log(`machine: ${machine()}`);
  console.log(`${DIMS}-d Float32 vectors, one ready chunk per message; messages 60 % English / 40 % Chinese, 40-2000 characters\n`);
  console.log('| messages | profile file | backup with index (VACUUM INTO) | backup without index | restore of the lean backup (rebuilds keyword index) |');
  console.log('|---|---|---|---|---|');
  try {
    for (const size of SIZES) {
      const path = join(dir, `p${size}`, 'recall.db');
      const db = openDatabase(path);
      seed(db, size, DIMS, log);
      const fileSize = fileBytes(path);
      const full = backupDatabase(db, join(dir, `full-${size}.db`));
      const lean = backupDatabase(db, join(dir, `lean-${size}.db`), { withoutIndex: true });
      db.close();
      rmSync(join(dir, `full-${size}.db`), { force: true });
      const t = performance.now();
      const restored = restoreDatabaseFile(lean.path, join(dir, `r${size}`, 'recall.db'));
      const restoreMs = performance.now() - t;
      console.log(
        `| ${size.toLocaleString('en')} | ${mib(fileSize)} | ${sec(full.ms)}, ${mib(full.bytes)} | ${sec(lean.ms)}, ${mib(lean.bytes)} (${((lean.bytes / full.bytes) * 100).toFixed(0)} %) | ${sec(restoreMs)} (${restored.reindexed.toLocaleString('en')} messages re-indexed) |`,
      );
      Object.assign(summary, {
        [`file_mib_${size}`]: Math.round(fileSize / 2 ** 20),
        [`full_s_${size}`]: +(full.ms / 1000).toFixed(2),
        [`full_mib_${size}`]: Math.round(full.bytes / 2 ** 20),
        [`lean_s_${size}`]: +(lean.ms / 1000).toFixed(2),
        [`lean_mib_${size}`]: Math.round(lean.bytes / 2 ** 20),
        [`restore_lean_s_${size}`]: +(restoreMs / 1000).toFixed(2),
      });
      rmSync(join(dir, `p${size}`), { recursive: true, force: true });
      rmSync(join(dir, `r${size}`), { recursive: true, force: true });
      rmSync(lean.path, { force: true });
    }
    console.log(`\nBENCH-SUMMARY ${JSON.stringify(summary)}`);
  } finally {
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
    else console.error(`kept ${dir}`);
  }
}

main();
