/**
 * `pnpm bench:cjk --messages 1m --projects 100`: Chinese ranking and discover latency in one table
 * at the scale of bench:keyword. The corpus is bench:keyword's (keyword-corpus.ts: the same seed,
 * project sizes, session mix and write path; 1M messages over 100 projects, the largest 100k), with
 * one difference: its Chinese sentences are resampled word by word from the MemoryBank logs
 * (CorpusOptions.chinese), so the distractors have the logs' characters and word frequencies but
 * never contain an answer verbatim. Each MemoryBank user's log is written as its own project in the
 * middle of the ingest. For a user's questions, the user's sessions are moved into the largest
 * project (setSessionProject, the store's own move) and the questions are scoped to it, so every
 * question is answered among ~100k distractor messages of its project and 1M in the index, then
 * moved back. Each question is run the way session_search's discover calls keywordSearch (80
 * candidates for a limit-10 call, titles, substring fallback); ranking is scored on the same calls
 * that are timed (a target turn among the first k message hits).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessages, bulkWrite, createProject, createSession, keywordSearch, setSessionProject, writeTransaction, type KeywordSearchOptions } from '@recall/store';
import { DISCOVER_CANDIDATES, K, type DevQuery, type Doc, type MemoryBank } from './cjk-data.js';
import { buildCorpus, projectSizes, writeCorpus } from './keyword-corpus.js';
import { argNumber, argValue, machine, mib, ms, rng, stats } from './util.js';

/** Same seed as bench:keyword, so the two benches write the same sessions. */
const SEED = 20261130;
const WARMUP_QUERIES = 10;

function fileSize(path: string): number {
  return ['', '-wal'].reduce((s, suf) => s + (existsSync(path + suf) ? statSync(path + suf).size : 0), 0);
}

const userProject = (u: number): string => `p_mb${u}`;
const userSession = (u: number, d: number): string => `mb${u}_${d}`;

/** Writes each user's log as its own project (one session per day, no titles) in one batch. */
function writeLogs(db: RecallDatabase, users: string[], docs: readonly Doc[]): void {
  writeTransaction(db, () => users.forEach((user, u) => createProject(db, { id: userProject(u), name: `MemoryBank ${user}` })));
  bulkWrite(db, () => {
    users.forEach((user, u) => {
      const sessions = [...new Set(docs.filter((d) => d.user === user).map((d) => d.session))];
      sessions.forEach((session, k) => {
        const own = docs.filter((d) => d.session === session);
        createSession(db, { id: userSession(u, k), projectId: userProject(u), startedAt: own[0]!.createdAt, source: 'desktop' });
        appendMessages(db, userSession(u, k), own.map((d) => ({ role: d.role, content: d.content, createdAt: d.createdAt })));
      });
    });
  });
}

/** message id → document, read back from the store (sessions in day order, messages by id). */
function mapIds(db: RecallDatabase, users: string[], docs: readonly Doc[]): { byId: Map<number, Doc>; sessionsOf: string[][] } {
  const ids = db.raw.prepare('select id from messages where session_id = ? order by id').pluck();
  const byId = new Map<number, Doc>();
  const sessionsOf = users.map((user, u) => {
    const sessions = [...new Set(docs.filter((d) => d.user === user).map((d) => d.session))];
    return sessions.map((session, k) => {
      const own = docs.filter((d) => d.session === session);
      const got = ids.all(userSession(u, k)) as number[];
      if (got.length !== own.length) throw new Error(`the database does not hold ${session} as this bench writes it (${got.length} vs ${own.length} messages): delete it and build again`);
      got.forEach((id, i) => byId.set(id, own[i]!));
      return userSession(u, k);
    });
  });
  return { byId, sessionsOf };
}

interface Scored {
  q: DevQuery;
  rank: number;
  /** Wall-clock ms per round. */
  lat: number[];
  /** This process's CPU ms per round: steadier than wall time on a shared, loaded machine. */
  cpu: number[];
  /** The search said only the newest RANK_WINDOW matches were ranked. */
  windowed: boolean;
}

export function runAtScale(bank: MemoryBank, docs: readonly Doc[], queries: readonly DevQuery[], questionsFile: string): void {
  const total = argNumber('messages', 1_000_000);
  const projectCount = Math.max(1, argNumber('projects', 100));
  const rounds = Math.max(1, argNumber('rounds', 3));
  const batchMessages = argNumber('batch', 10_000);
  const dbArg = argValue('db');
  const dir = dbArg ? null : mkdtempSync(join(tmpdir(), 'recall-cjk-scale-'));
  const path = dbArg || join(dir!, 'recall.db');
  const users = Object.keys(bank);
  console.log(`# cjk-bench at scale — ${new Date().toISOString()}`);
  console.log(`machine: ${machine()}`);
  console.log(`target: ${total.toLocaleString('en')} messages over ${projectCount} projects (bench:keyword's corpus) + the MemoryBank logs (${docs.length} messages, ${users.length} users, one project each); db ${path}`);
  console.log(`questions: ${queries.length} from ${questionsFile} (foreign-project questions left out), ${rounds} timed rounds after ${WARMUP_QUERIES} warm-up queries`);
  const reuse = dbArg !== undefined && dbArg !== '' && existsSync(dbArg);
  // A reused database is queried on a temp copy: the moves below rewrite FTS rows, and FTS5 does
  // not take a replaced row out of BM25's row count and length totals, so querying the kept file
  // itself would drift its ranking a little with every run.
  // A database built with --db is queried on a copy as well, so the kept file stays as built.
  const copyDir = dbArg ? mkdtempSync(join(tmpdir(), 'recall-cjk-scale-copy-')) : null;
  const toCopy = (): string => {
    const c0 = performance.now();
    for (const suffix of ['', '-wal']) if (existsSync(path + suffix)) copyFileSync(path + suffix, join(copyDir!, 'recall.db' + suffix));
    console.log(`copied ${path} to a temp copy for this run's queries in ${((performance.now() - c0) / 1000).toFixed(1)} s`);
    return join(copyDir!, 'recall.db');
  };
  let db = openDatabase(reuse ? toCopy() : path);
  try {
    let buildNote: string;
    const sizes = projectSizes(total, projectCount);
    if (reuse) {
      const n = db.raw.prepare('select count(*) from messages').pluck().get() as number;
      buildNote = 'reused';
      console.log(`reusing ${path} (${n.toLocaleString('en')} messages, written earlier; build time not measured)`);
    } else {
      const t0 = performance.now();
      const r = rng(SEED);
      const corpus = buildCorpus(r, false, { chinese: 'resampled' });
      console.log(`text: ${corpus.source}`);
      console.log(`project sizes: largest ${sizes[0]!.toLocaleString('en')}, smallest ${Math.min(...sizes).toLocaleString('en')}`);
      let logsWritten = false;
      const out = writeCorpus(db, {
        total,
        projectCount,
        batchMessages,
        r,
        corpus,
        log: (line) => console.log(line),
        onMessage(_content, _project, index) {
          // The logs go in the middle of the id range: neither always inside the newest-first
          // ranked window (keyword-rank.ts RANK_WINDOW) nor always outside it.
          if (!logsWritten && index >= total / 2) {
            logsWritten = true;
            writeLogs(db, users, docs);
            console.log(`  wrote the MemoryBank logs (${docs.length} messages) after ${index.toLocaleString('en')} generated messages`);
          }
        },
      });
      if (!logsWritten) writeLogs(db, users, docs);
      db.raw.pragma('wal_checkpoint(TRUNCATE)');
      const secs = (performance.now() - t0) / 1000;
      buildNote = `${secs.toFixed(0)} s`;
      console.log(`build: ${(out.written + docs.length).toLocaleString('en')} messages in ${secs.toFixed(1)} s (write path ${(out.writeMs / 1000).toFixed(1)} s = ${Math.round(out.written / (out.writeMs / 1000)).toLocaleString('en')} msg/s)`);
    }
    const size = fileSize(path);
    if (copyDir && !reuse) {
      db.close();
      db = openDatabase(toCopy());
    }
    console.log(`db size: ${mib(size)}`);
    const { byId, sessionsOf } = mapIds(db, users, docs);
    const scopeProject = 'p_bench0';
    const scopeSize = db.raw.prepare('select count(*) from messages m join sessions s on s.id = m.session_id where s.project_id = ?').pluck().get(scopeProject) as number;
    const owner = db.raw.prepare('select project_id from sessions where id = ?').pluck();
    // As session_search's discover calls it for a project-wide caller (keyword-source.ts runKeyword).
    const scope = { kind: 'project' as const, projectId: scopeProject, excludeSessionIds: [] as string[] };
    // Tuning knobs for variants (defaults = what ships): --common-share X, --backoff auto|unigram|bigram|none, --rank-window N.
    const knobs: KeywordSearchOptions = {};
    const share = argValue('common-share');
    if (share) knobs.commonCharacterShare = Number(share);
    const backoff = argValue('backoff');
    if (backoff) knobs.cjkBackoff = backoff as KeywordSearchOptions['cjkBackoff'];
    const window = argValue('rank-window');
    if (window) knobs.rankWindow = argNumber('rank-window', 0);
    if (Object.keys(knobs).length > 0) console.log(`variant: ${JSON.stringify(knobs)} (not the shipped defaults)`);
    const search = (query: string) => keywordSearch(db, scope, query, { limit: DISCOVER_CANDIDATES, substringFallback: true, ...knobs });
    for (const q of queries.slice(0, WARMUP_QUERIES)) search(q.query);

    const scored: Scored[] = [];
    let leaks = 0;
    users.forEach((user, u) => {
      const own = queries.filter((q) => q.user === user);
      if (own.length === 0) return;
      for (const s of sessionsOf[u]!) setSessionProject(db, s, scopeProject);
      console.log(`  user ${u + 1}/${users.length}: ${own.length} questions × ${rounds} rounds in ${scopeProject} (${(scopeSize + byIdCount(byId, user)).toLocaleString('en')} messages)`);
      const results: Scored[] = own.map((q) => ({ q, rank: -1, lat: [], cpu: [], windowed: false }));
      for (let r = 0; r < rounds; r++) {
        for (const res of results) {
          const c = process.cpuUsage();
          const t = performance.now();
          const out = search(res.q.query);
          res.lat.push(performance.now() - t);
          const cu = process.cpuUsage(c);
          res.cpu.push((cu.user + cu.system) / 1000);
          if (r > 0) continue;
          res.windowed = out.notes.some((n) => / were ranked\. Add a rarer word/.test(n));
          for (const h of out.hits) if (owner.get(h.sessionId) !== scopeProject) leaks++;
          res.rank = out.hits.slice(0, 10).findIndex((h) => {
            const d = byId.get(h.messageId);
            return d !== undefined && d.user === res.q.user && res.q.targets.includes(d.turn);
          });
        }
      }
      for (const s of sessionsOf[u]!) setSessionProject(db, s, userProject(u));
      scored.push(...results);
    });

    const row = (label: string, set: Scored[], last: boolean): string => {
      const n = set.length;
      const r1 = set.filter((s) => s.rank === 0).length / n;
      const r5 = set.filter((s) => s.rank >= 0 && s.rank < K).length / n;
      const mrr = set.reduce((a, s) => a + (s.rank >= 0 ? 1 / (s.rank + 1) : 0), 0) / n;
      const st = stats(set.flatMap((s) => s.lat));
      const cpu = stats(set.flatMap((s) => s.cpu));
      const windowed = set.filter((s) => s.windowed).length;
      return `| ${label} | ${n} | ${r1.toFixed(3)} / **${r5.toFixed(3)}** / ${mrr.toFixed(3)} | ${ms(st.p50)} | **${ms(st.p95)}** | ${ms(st.max)} | ${ms(cpu.p50)} / ${ms(cpu.p95)} | ${windowed} | ${last ? buildNote : ''} | ${last ? mib(size) : ''} |`;
    };
    const kinds = [...new Set(scored.map((s) => s.q.kind ?? 'exact'))];
    const chinese = scored.filter((s) => /\p{Script=Han}/u.test(s.q.query));
    console.log(`\nranking and discover latency, each question scoped to ${scopeProject} (${scopeSize.toLocaleString('en')} generated messages + the asking user's log), ${(db.raw.prepare('select count(*) from messages').pluck().get() as number).toLocaleString('en')} messages in the index:`);
    console.log(`| questions | n | R@1 / R@${K} / MRR | discover p50 | discover p95 | max | CPU p50 / p95 | windowed | build | DB size |`);
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const k of kinds) console.log(row(k, scored.filter((s) => (s.q.kind ?? 'exact') === k), false));
    console.log(row('Chinese (questions with Han characters)', chinese, false));
    console.log(row('all', scored, true));
    console.log(`\nscope check: ${leaks} hits outside the project (must be 0)`);
    console.log('(CPU = this process\'s CPU time per call, the steadier figure on a loaded machine; windowed = questions whose matches in the project exceeded the ranked window, so only the newest of them were ranked)');
    console.log(`load average after the queries: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const cst = stats(chinese.flatMap((s) => s.lat));
    const cr5 = chinese.filter((s) => s.rank >= 0 && s.rank < K).length / chinese.length;
    console.log(`BENCH-SUMMARY ${JSON.stringify({ bench: 'cjk-scale', messages: total, questions: scored.length, chinese_r5: Number(cr5.toFixed(3)), chinese_p50_ms: Number(cst.p50.toFixed(2)), chinese_p95_ms: Number(cst.p95.toFixed(2)), chinese_cpu_p95_ms: Number(stats(chinese.flatMap((s) => s.cpu)).p95.toFixed(2)), db_mib: Number((size / 2 ** 20).toFixed(1)), leaks })}`);
  } finally {
    db.close();
    if (copyDir) rmSync(copyDir, { recursive: true, force: true });
    if (dir && !process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${path}`);
  }
}

function byIdCount(byId: Map<number, Doc>, user: string): number {
  let n = 0;
  for (const d of byId.values()) if (d.user === user) n++;
  return n;
}
