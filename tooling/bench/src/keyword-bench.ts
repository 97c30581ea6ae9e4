/**
 * `pnpm bench:keyword [--messages N] [--projects P] [--queries Q] [--dense] [--mmap MiB] [--db PATH] [--keep] [--compare top-first|backoff|unigram]`
 * (or `--against ROOT --db PATH --against-db PATH2`: a same-run A/B against another build, keyword-ab.ts)
 * builds a store of N messages (default 1,000,000) over P projects (default 100; the largest holds
 * 10%, at most 100k) through the store's real write path (createProject / createSession /
 * appendMessages, batched inside bulkWrite), then reports ingest messages/s, discover latency
 * (p50/p95) for common, rare and CJK queries scoped to the largest project, and the DB size per
 * table. Text: Chinese sentences from ../shared/data/memorybank/memory_bank_cn.json and English chat
 * sentences from LoCoMo and MemoryBank EN (read in place, never copied), mixed with generated
 * technical sentences, identifiers (`busy_timeout`, `E_CONN_RESET`, `x_y.yaml`) and `修复 id 问题`
 * mixes; without that folder (or with --dense, a stress case) everything is generated from small
 * built-in vocabularies. Seeded, so runs are reproducible. A command, not a test: it prints and exits.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { keywordSearch, type KeywordSearchResult } from '@recall/store';
import { isStopword } from '@recall/store/internal';
import { keywordAb } from './keyword-ab.js';
import { buildCorpus, keywordQuestions, projectSizes, writeCorpus, type Corpus, type QueryCase } from './keyword-corpus.js';
import { argNumber, argValue, exitOnHelp, machine, mib, ms, rng, stats } from './util.js';

const USAGE = `Usage: pnpm bench:keyword [options]   (node tooling/bench/dist/keyword-bench.js [options])
Keyword search at scale: ingest messages/s, discover latency (p50/p95) for common, rare and CJK
queries in the largest project, DB size per table, and plain FTS5 BM25 as the same-run peer.
  --messages N     messages to write (default 1m; 200k, 1_000_000 accepted)
  --projects P     projects (default 100; the largest holds 10 %, at most 100k)
  --queries Q      queries per kind (default 100)
  --batch N        messages per write batch (default 10k)
  --dense          generated text only (stress case), even when ../shared/data exists
  --mmap MiB       override openDatabase()'s mmap_size (0 = its default)
  --db PATH        write to PATH instead of a temp folder (kept)
  --keep           keep the temp database
  --compare KNOB   also time the same queries with one knob off: top-first | backoff | unigram
  --no-peer        skip the plain FTS5 peer
  --data DIR       shared evaluation data (default ../shared/data)
Same-run A/B against another build (nothing is written to PATH or PATH2: temp copies are queried):
  --against ROOT   another checkout of this repository, built (e.g. \`git worktree add ../base <commit>\`,
                   then install and build there); the same questions through both builds' keywordSearch,
                   alternated in one process, CPU per call and ratios; needs --db PATH (written by this
                   build's bench:keyword --db) and --against-db PATH2 (by the other build's, same options)
  --rounds N       rounds over the questions (default 3); --queries sets questions per kind (default 50)
  --writes W       none (default) | append (a message to the largest project) | move (a small session
                   in or out of it) before each search; --write-every N: before every Nth search
  -h, --help       print this and exit`;

function fileSize(path: string): number {
  return ['', '-wal'].reduce((s, suf) => s + (existsSync(path + suf) ? statSync(path + suf).size : 0), 0);
}

/**
 * Query classes, all scoped to the largest project (keyword-corpus.ts keywordQuestions): the most
 * frequent English words of the corpus, rare identifiers of the largest project (any identifier of
 * the corpus if none was seen there), the hand-written Chinese dev questions and frequent words.
 */
function makeQueries(r: () => number, c: Corpus, perKind: number, common: string[], largestIdentifiers: string[]): QueryCase[] {
  return keywordQuestions(r, perKind, common, largestIdentifiers.length ? largestIdentifiers : c.identifiers);
}

/**
 * Peer measured in the same run: a plain FTS5 table (`porter unicode61`, no scope token, no CJK
 * handling) holding ONLY the largest project's messages, queried with the question's words OR-ed
 * and ordered by bm25, limit 20 — what a bare "FTS5 BM25 per project" design costs on the same
 * texts. It does less than the store (no project join, titles, snippets, CJK), so the ratio is the
 * price of those features. Printed per query class; skipped with --no-peer.
 */
function plainFtsPeer(db: RecallDatabase, projectId: string, queries: QueryCase[]): Record<string, { p50: number; p95: number }> {
  const b0 = performance.now();
  db.raw.exec("create virtual table temp.peer_fts using fts5(content, tokenize = 'porter unicode61')");
  db.raw
    .prepare('insert into temp.peer_fts(rowid, content) select m.id, m.content from messages m join sessions s on s.id = m.session_id where s.project_id = ?')
    .run(projectId);
  const buildMs = performance.now() - b0;
  const stmt = db.raw.prepare('select rowid from temp.peer_fts where peer_fts match ? order by bm25(peer_fts) limit 20');
  const lat: Record<string, number[]> = {};
  for (const q of queries) {
    const words = [...new Set(q.text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((w) => !isStopword(w));
    if (words.length === 0) continue;
    const expr = words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' OR ');
    const t1 = performance.now();
    stmt.all(expr);
    (lat[q.kind] ??= []).push(performance.now() - t1);
  }
  db.raw.exec('drop table temp.peer_fts');
  const out: Record<string, { p50: number; p95: number }> = {};
  console.log(`\npeer: plain FTS5 porter unicode61 BM25 over the largest project only (built in ${(buildMs / 1000).toFixed(1)} s), same queries, words OR-ed, limit 20:`);
  console.log('| queries | n | p50 | p95 |');
  console.log('|---|---|---|---|');
  for (const [kind, v] of Object.entries(lat)) {
    const st = stats(v);
    out[kind] = { p50: st.p50, p95: st.p95 };
    console.log(`| ${kind} | ${st.n} | ${ms(st.p50)} | ${ms(st.p95)} |`);
  }
  return out;
}

function main(): void {
  exitOnHelp(USAGE);
  if (argValue('against')) {
    keywordAb().catch((e: unknown) => {
      console.error(`bench:keyword --against: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 1;
    });
    return;
  }
  const total = argNumber('messages', 1_000_000);
  const projectCount = Math.max(1, argNumber('projects', 100));
  const perKind = argNumber('queries', 100);
  const batchMessages = argNumber('batch', 10_000);
  const keep = process.argv.includes('--keep');
  const dir = argValue('db') ? null : mkdtempSync(join(tmpdir(), 'recall-keyword-bench-'));
  const path = argValue('db') || join(dir!, 'recall.db');
  const r = rng(20261130);
  console.log(`# keyword-bench — ${new Date().toISOString()}`);
  console.log(`machine: ${machine()}`);
  console.log(`target: ${total.toLocaleString('en')} messages, ${projectCount} projects, db ${path}`);
  const dense = process.argv.includes('--dense');
  const corpus = buildCorpus(r, dense);
  console.log(`text: ${corpus.source}`);

  const db: RecallDatabase = openDatabase(path);
  // --mmap MiB: override openDatabase()'s mmap_size (1 GiB) to compare settings; 0 keeps the default.
  const mmapMiB = argNumber('mmap', 0);
  if (mmapMiB > 0) {
    db.raw.pragma(`mmap_size = ${mmapMiB * 1024 * 1024}`);
    console.log(`mmap_size: ${mmapMiB} MiB`);
  }
  try {
    const sizes = projectSizes(total, projectCount);
    console.log(`project sizes: largest ${sizes[0]!.toLocaleString('en')}, smallest ${Math.min(...sizes).toLocaleString('en')}`);

    const largestIdentifiers: string[] = [];
    // Document frequency of English words over every 10th message, to pick `common` query words.
    const df = new Map<string, number>();
    let sampled = 0;
    const out = writeCorpus(db, {
      total,
      projectCount,
      batchMessages,
      r,
      corpus,
      log: (line) => console.log(line),
      onMessage(content, project, index, rand) {
        if (index % 10 === 0) {
          sampled++;
          for (const w of new Set(content.toLowerCase().match(/[a-z]{4,}/g) ?? [])) if (!isStopword(w)) df.set(w, (df.get(w) ?? 0) + 1);
        }
        if (project === 0 && largestIdentifiers.length < 500 && rand() < 0.01) {
          const id = corpus.identifiers.find((x) => content.includes(x));
          if (id) largestIdentifiers.push(id);
        }
      },
    });
    const { projectIds, written, writeMs, cpuMs } = out;
    const wallSecs = out.wallSecs;
    const rate = written / (writeMs / 1000);
    console.log(
      `ingest: ${written.toLocaleString('en')} messages, write path ${(writeMs / 1000).toFixed(1)} s wall = ${Math.round(rate).toLocaleString('en')} msg/s; ` +
        `${(cpuMs / 1000).toFixed(1)} s CPU = ${Math.round(written / (cpuMs / 1000)).toLocaleString('en')} msg/s per CPU-second ` +
        `(wall time incl. text generation ${wallSecs.toFixed(1)} s)`,
    );

    db.raw.pragma('wal_checkpoint(TRUNCATE)');
    const sizeRows = db.raw
      .prepare("select case when name like 'messages_fts%' then 'messages_fts (all shadow tables)' else name end as name, sum(pgsize) as bytes from dbstat group by 1 order by 2 desc limit 8")
      .all() as { name: string; bytes: number }[];
    console.log(`db size: ${mib(fileSize(path))}`);
    for (const row of sizeRows) console.log(`  ${row.name}: ${mib(row.bytes)}`);

    // Discover in the largest project, the way session_search calls it (20 hits + titles).
    const scope = { kind: 'project' as const, projectId: projectIds[0]! };
    const common = [...df.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
    console.log(
      `common query words: the 40 most frequent non-stop-words, in ${((100 * common[common.length - 1]![1]) / sampled).toFixed(1)}–${((100 * common[0]![1]) / sampled).toFixed(1)}% of messages ` +
        `(${common.slice(0, 8).map(([w]) => w).join(', ')}, …)`,
    );
    const queries = makeQueries(r, corpus, perKind, common.map(([w]) => w), largestIdentifiers);
    for (const q of queries.slice(0, 10)) keywordSearch(db, scope, q.text, { limit: 20 }); // warm-up
    const results: Record<string, { lat: number[]; hits: number[] }> = {};
    let leaks = 0;
    const owner = db.raw.prepare('select project_id from sessions where id = ?').pluck();
    // --compare: the same queries through the same code with one knob off, interleaved per query so
    // both see the same machine load (a peer measured in the same run).
    const compare = argValue('compare');
    const peerResults: Record<string, number[]> = {};
    for (const q of queries) {
      const t1 = performance.now();
      const res: KeywordSearchResult = keywordSearch(db, scope, q.text, { limit: 20 });
      const dt = performance.now() - t1;
      (results[q.kind] ??= { lat: [], hits: [] }).lat.push(dt);
      results[q.kind]!.hits.push(res.hits.length);
      for (const h of res.hits) if (owner.get(h.sessionId) !== scope.projectId) leaks++;
      if (compare === 'top-first' || compare === 'backoff' || compare === 'unigram') {
        const t2 = performance.now();
        const knob = compare === 'top-first' ? { topFirst: false } : { cjkBackoff: compare === 'backoff' ? ('bigram' as const) : ('unigram' as const) };
        keywordSearch(db, scope, q.text, { limit: 20, ...knob });
        (peerResults[q.kind] ??= []).push(performance.now() - t2);
      }
    }
    if (compare) {
      const peerName = compare === 'top-first' ? 'topFirst off (JOIN before ranking)' : compare === 'backoff' ? "cjkBackoff 'bigram' (no relaxation)" : "cjkBackoff 'unigram' (characters always)";
      console.log(`\n--compare ${compare}: the same queries with ${peerName}, interleaved:`);
      console.log('| queries | shipped p50 / p95 | peer p50 / p95 | p95 ratio |');
      console.log('|---|---|---|---|');
      for (const [kind, lat] of Object.entries(peerResults)) {
        const a = stats(results[kind]!.lat);
        const b = stats(lat);
        console.log(`| ${kind} | ${ms(a.p50)} / ${ms(a.p95)} | ${ms(b.p50)} / ${ms(b.p95)} | ${(a.p95 / b.p95).toFixed(2)} |`);
      }
    }
    console.log(`\ndiscover latency in the largest project (${sizes[0]!.toLocaleString('en')} messages), limit 20 + titles:`);
    // Wall-clock only: process CPU time also counts V8's helper threads and is not a latency.
    console.log('| queries | n | p50 | p95 | max | mean hits |');
    console.log('|---|---|---|---|---|---|');
    for (const [kind, v] of Object.entries(results)) {
      const s = stats(v.lat);
      console.log(`| ${kind} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${(v.hits.reduce((a, b) => a + b, 0) / v.hits.length).toFixed(1)} |`);
    }
    console.log(`load average after the queries: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const peer = process.argv.includes('--no-peer') ? null : plainFtsPeer(db, scope.projectId, queries);
    const summary: Record<string, unknown> = { bench: 'keyword', messages: written, ingest_msg_s: Math.round(rate), db_mib: Number((fileSize(path) / 2 ** 20).toFixed(1)), leaks };
    for (const [kind, v] of Object.entries(results)) {
      const st = stats(v.lat);
      summary[`${kind}_p95_ms`] = Number(st.p95.toFixed(2));
      if (peer?.[kind]) {
        summary[`${kind}_p50_vs_plain_fts5`] = Number((st.p50 / peer[kind]!.p50).toFixed(1));
        summary[`${kind}_p95_vs_plain_fts5`] = Number((st.p95 / peer[kind]!.p95).toFixed(1));
      }
    }
    console.log(`\nscope check: ${leaks} hits outside the project (must be 0)`);
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
    console.log(`examples: ${queries.filter((_, k) => k % perKind === 0).map((q) => JSON.stringify(q.text)).join(', ')}`);
  } finally {
    db.close();
    if (dir && !keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${path}`);
  }
}

main();
