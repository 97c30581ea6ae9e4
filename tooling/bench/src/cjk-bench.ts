/**
 * `pnpm bench:cjk` — compares ways of making Chinese text findable with SQLite FTS5 on the
 * MemoryBank Chinese chat logs (../shared/data/memorybank/memory_bank_cn.json, read in place) with
 * the hand-labelled dev questions in packages/store/test/fixtures/cjk-dev-queries.json. Every
 * approach gets the same query words (Intl.Segmenter words minus stop-words, Latin units as
 * phrases) so the comparison isolates how the text is indexed and matched:
 *   - unicode61 only: no CJK handling (a whole CJK run is one token) — the failure baseline
 *   - segmenter words: Intl.Segmenter words stored as space-joined tokens
 *   - bigrams + LIKE: overlapping bigrams; one-character words via LIKE
 *   - trigram + LIKE: FTS5 `trigram` tokenizer; words shorter than 3 characters via LIKE
 *   - LIKE only: every word via LIKE, scored by IDF
 *   - shipped: bigrams in `body` + unigrams in `cjk` through the real store code (indexMessages /
 *     keywordSearch), i.e. what Recall runs
 * The shipped rows ask keywordSearch for 80 candidates, as session_search's discover does for a
 * limit-10 call, and score its first 5 (so the coverage re-rank of CJK candidates is measured as
 * the tool runs it; `no coverage re-rank` is the same without it).
 * Reported: recall@5 (a target turn among the top 5 messages) inside the user's own project and
 * with all users in one project, plus build time, DB size and query latency on a corpus replicated
 * `--copies N` times (default 40) with the query scoped to one copy.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RawDatabase, type RecallDatabase } from '@recall/schema';
import { keywordSearch } from '@recall/store';
import { cjkBigrams, indexMessages, isStopword, latinUnits, normalizeForSearch, parseQuery, segmentWords, splitRuns, stripParticles } from '@recall/store/internal';
import { DISCOVER_CANDIDATES, K, loadDocs, type DevQuery, type Doc, type MemoryBank } from './cjk-data.js';
import { runAtScale } from './cjk-scale.js';
import { argNumber, argValue, exitOnHelp, machine, mib, ms, readJsonIfExists, sharedDataPath, stats, STORE_ROOT } from './util.js';

const USAGE = `Usage: pnpm bench:cjk [options]   (node tooling/bench/dist/cjk-bench.js [options])
Ways of making Chinese findable with FTS5 (unicode61, segmenter words, bigrams, trigram, LIKE, the
shipped index) on the MemoryBank Chinese logs with the dev questions: recall@5, build time, size,
query latency. Needs ../shared/data/memorybank (skipped without it).
  --copies N       replicate the corpus N times for the latency part (default 40)
  --rounds N       timing rounds (default 3)
  --only NAME      run only the approach whose name starts with NAME
  --data DIR       shared evaluation data (default ../shared/data)
At scale (ranking and discover latency in one table, the tuning questions among bench:keyword's corpus):
  --messages N     generated messages (1m for the issue's setup; 20k, 1_000_000 accepted); selects this mode
  --projects P     projects (default 100; the largest, 10 % up to 100k, is the questions' scope)
  --rounds N       timed rounds per question (default 3)
  --db PATH        write the database to PATH and keep it; an existing PATH is reused (no build).
                   Queries run on a temp copy, so PATH stays as built and reruns rank alike
  --keep           keep the temp database
  --common-share X, --backoff auto|unigram|bigram|none, --rank-window N
                   a tuning variant instead of the shipped defaults
  -h, --help       print this and exit`;

// ---------------------------------------------------------------------------------------------
// Query words shared by the alternative approaches (the shipped one uses fts-query.ts, which
// applies the same segmentation and stop-words).

interface QueryWords {
  latin: string[][];
  cjk: string[];
}

function queryWords(query: string): QueryWords {
  const latin: string[][] = [];
  const cjk: string[] = [];
  const stopLatin: string[][] = [];
  const stopCjk: string[] = [];
  for (const run of splitRuns(normalizeForSearch(query))) {
    if (run.cjk) {
      for (const w of segmentWords(run.text).map(stripParticles)) (isStopword(w) ? stopCjk : cjk).push(w);
    } else {
      for (const u of latinUnits(run.text)) (u.parts.length === 1 && isStopword(u.parts[0]!) ? stopLatin : latin).push(u.parts);
    }
  }
  if (latin.length + cjk.length === 0) return { latin: stopLatin, cjk: stopCjk };
  return { latin: [...new Map(latin.map((p) => [p.join(' '), p])).values()], cjk: [...new Set(cjk)] };
}

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

// ---------------------------------------------------------------------------------------------

interface Built {
  search(project: string, query: string, k: number): number[];
  bytes(): number;
  close(): void;
}

interface Approach {
  name: string;
  build(dir: string, docs: Doc[], projectOf: (d: Doc) => string): Built;
}

/** Plain SQLite table of docs + one FTS5 table, for the alternative approaches. */
function altDb(dir: string, ftsDef: string, docs: Doc[], projectOf: (d: Doc) => string, toIndex: ((d: Doc) => string) | null): RawDatabase {
  // Through openDatabase() like everything else; the alternative tables sit beside the real schema.
  const db = openDatabase(join(dir, 'alt.db')).raw;
  db.exec(`create table docs (id integer primary key, project text not null, content text not null);
    create index docs_project on docs (project);`);
  if (toIndex) db.exec(`create virtual table f using fts5(${ftsDef})`);
  const insDoc = db.prepare('insert into docs (id, project, content) values (?, ?, ?)');
  const insFts = toIndex ? db.prepare('insert into f (rowid, t) values (?, ?)') : null;
  db.transaction(() => {
    for (const d of docs) {
      insDoc.run(d.id, projectOf(d), d.content);
      insFts?.run(d.id, toIndex!(d));
    }
  })();
  return db;
}

function fileBytes(dir: string, name: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    const p = join(dir, name + suffix);
    if (existsSync(p)) total += statSync(p).size;
  }
  return total;
}

/**
 * FTS (bm25, lower is better) plus LIKE terms (each matched LIKE term adds its IDF over the scope),
 * merged in JS. `likeTerms` are raw substrings.
 */
function searchMerged(db: RawDatabase, project: string, match: string | null, likeTerms: string[], k: number): number[] {
  const score = new Map<number, number>();
  if (match) {
    const rows = db
      .prepare('select d.id as id, bm25(f) as r from f cross join docs d on d.id = f.rowid where f match ? and d.project = ?' + (likeTerms.length ? '' : ' order by r limit ?'))
      .all(...(likeTerms.length ? [match, project] : [match, project, k])) as { id: number; r: number }[];
    for (const r of rows) score.set(r.id, -r.r);
  }
  if (likeTerms.length > 0) {
    const n = (db.prepare('select count(*) from docs where project = ?').pluck().get(project) as number) || 1;
    const like = db.prepare("select id from docs where project = ? and content like ? escape '\\'").pluck();
    for (const t of likeTerms) {
      const ids = like.all(project, `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as number[];
      const idf = Math.log(1 + (n - ids.length + 0.5) / (ids.length + 0.5));
      for (const id of ids) score.set(id, (score.get(id) ?? 0) + idf);
    }
  }
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, k)
    .map(([id]) => id);
}

/** Query side shared by approaches whose index holds whole words: OR of the query's words and CJK words. */
function wordQueries(db: RawDatabase, dir: string): Built {
  return {
    search(project, query, k) {
      const w = queryWords(query);
      const terms = [...w.latin.map((p) => quote(p.join(' '))), ...w.cjk.map(quote)];
      return terms.length ? searchMerged(db, project, terms.join(' OR '), [], k) : [];
    },
    bytes: () => fileBytes(dir, 'alt.db'),
    close: () => db.close(),
  };
}

const approaches: Approach[] = [
  {
    name: 'unicode61 only (no CJK handling)',
    build(dir, docs, projectOf) {
      const db = altDb(dir, "t, content='', tokenize='unicode61 remove_diacritics 2'", docs, projectOf, (d) => d.content.normalize('NFKC'));
      return wordQueries(db, dir);
    },
  },
  {
    name: 'segmenter words (Intl.Segmenter)',
    build(dir, docs, projectOf) {
      const toIndex = (d: Doc): string =>
        splitRuns(d.content.normalize('NFKC'))
          .map((r) => (r.cjk ? ` ${segmentWords(r.text).join(' ')} ` : r.text))
          .join('');
      const db = altDb(dir, "t, content='', tokenize='unicode61 remove_diacritics 2'", docs, projectOf, toIndex);
      return wordQueries(db, dir);
    },
  },
  {
    name: 'bigrams + LIKE for 1-char words',
    build(dir, docs, projectOf) {
      const toIndex = (d: Doc): string =>
        splitRuns(d.content.normalize('NFKC'))
          .map((r) => (r.cjk ? ` ${cjkBigrams(r.text)} ` : r.text))
          .join('');
      const db = altDb(dir, "t, content='', tokenize='unicode61 remove_diacritics 2'", docs, projectOf, toIndex);
      return {
        search(project, query, k) {
          const w = queryWords(query);
          const fts = [...w.latin.map((p) => quote(p.join(' '))), ...w.cjk.filter((c) => Array.from(c).length > 1).map((c) => quote(cjkBigrams(c)))];
          const like = w.cjk.filter((c) => Array.from(c).length === 1);
          return searchMerged(db, project, fts.length ? fts.join(' OR ') : null, like, k);
        },
        bytes: () => fileBytes(dir, 'alt.db'),
        close: () => db.close(),
      };
    },
  },
  {
    name: 'trigram tokenizer + LIKE for 1–2 char words',
    build(dir, docs, projectOf) {
      const db = altDb(dir, "t, content='', tokenize='trigram'", docs, projectOf, (d) => normalizeForSearch(d.content));
      return {
        search(project, query, k) {
          const w = queryWords(query);
          const words = [...w.latin.map((p) => p.join(' ')), ...w.cjk];
          const fts = words.filter((x) => Array.from(x).length >= 3).map(quote);
          const like = words.filter((x) => Array.from(x).length < 3);
          return searchMerged(db, project, fts.length ? fts.join(' OR ') : null, like, k);
        },
        bytes: () => fileBytes(dir, 'alt.db'),
        close: () => db.close(),
      };
    },
  },
  {
    name: 'LIKE only (IDF-scored)',
    build(dir, docs, projectOf) {
      const db = altDb(dir, '', docs, projectOf, null);
      return {
        search(project, query, k) {
          const w = queryWords(query);
          return searchMerged(db, project, null, [...w.latin.map((p) => p.join(' ')), ...w.cjk], k);
        },
        bytes: () => fileBytes(dir, 'alt.db'),
        close: () => db.close(),
      };
    },
  },
  ...([
    ['auto', true],
    ['auto', false],
    ['unigram', true],
    ['bigram', true],
    ['none', true],
  ] as const).map(
    ([backoff, rerank]): Approach => ({
      name: `shipped: bigrams (body) + unigrams (cjk), backoff=${backoff}${rerank ? '' : ', no coverage re-rank'}`,
      build(dir, docs, projectOf) {
        const db: RecallDatabase = openDatabase(join(dir, 'recall.db'));
        const projects = new Set(docs.map(projectOf));
        const insProject = db.raw.prepare('insert into projects (id, name, slug) values (?, ?, ?)');
        const insSession = db.raw.prepare('insert or ignore into sessions (id, project_id, title, started_at) values (?, ?, ?, ?)');
        const insMessage = db.raw.prepare('insert into messages (id, session_id, role, content, created_at) values (?, ?, ?, ?, ?)');
        db.raw.transaction(() => {
          let i = 0;
          for (const p of projects) insProject.run(p, p, `p${i++}`);
          for (const d of docs) {
            // One session per (project, day); no titles, so only message hits count.
            insSession.run(`${projectOf(d)}|${d.session}`, projectOf(d), null, d.createdAt);
            insMessage.run(d.id, `${projectOf(d)}|${d.session}`, d.role, d.content, d.createdAt);
          }
          indexMessages(db.raw, docs);
        })();
        return {
          search(project, query, k) {
            // As session_search's discover asks (limit 10 → 80 candidates), so ranking and latency are the tool's keyword part.
            return keywordSearch(db, { kind: 'project', projectId: project }, query, { limit: Math.max(k, DISCOVER_CANDIDATES), titleLimit: 0, cjkBackoff: backoff, coverageRerank: rerank })
              .hits.slice(0, k)
              .map((h) => h.messageId);
          },
          bytes: () => fileBytes(dir, 'recall.db'),
          close: () => db.close(),
        };
      },
    }),
  ),
];

interface Quality {
  r1: number;
  r5: number;
  mrr: number;
  misses: string[];
}

/** recall@1, recall@5 (a target turn among the top k messages) and MRR@10 over the dev questions. */
function quality(built: Built, queries: DevQuery[], docs: Doc[], projectFor: (q: DevQuery) => string): Quality {
  const byId = new Map(docs.map((d) => [d.id, d]));
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  const misses: string[] = [];
  for (const q of queries) {
    const ids = built.search(projectFor(q), q.query, 10);
    const rank = ids.findIndex((id) => {
      const d = byId.get(id);
      return d !== undefined && d.user === q.user && q.targets.includes(d.turn);
    });
    if (rank === 0) r1++;
    if (rank >= 0 && rank < K) r5++;
    else misses.push(q.id);
    if (rank >= 0) mrr += 1 / (rank + 1);
  }
  const n = queries.length;
  return { r1: r1 / n, r5: r5 / n, mrr: mrr / n, misses };
}

interface Locomo {
  conversation: Record<string, unknown>;
  qa: { question: unknown; evidence?: unknown[]; category: number }[];
}

/**
 * English sanity check on LoCoMo (categories 1–4, evidence normalised): the shipped query parser and
 * index through the store code, and the same with a plain unicode61 table (no stemming), scored as
 * in ../shared/data/README.md (fraction of a question's evidence turns in the top k).
 */
function englishSanity(): string[] {
  const data = readJsonIfExists<Locomo[]>(sharedDataPath('locomo', 'locomo10.json'));
  if (!data) return ['(LoCoMo not found: English sanity check skipped)'];
  const norm = (id: unknown): string | null => {
    const m = /D\s*:?\s*(\d+)\s*:\s*(\d+)/.exec(String(id));
    return m ? `D${Number(m[1])}:${Number(m[2])}` : null;
  };
  const totals = { shipped: [0, 0], unicode61: [0, 0] };
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'recall-locomo-'));
  try {
    data.forEach((sample, si) => {
      const turns: { id: string; text: string }[] = [];
      for (const [key, value] of Object.entries(sample.conversation))
        if (/^session_\d+$/.test(key) && Array.isArray(value)) for (const t of value as { dia_id: string; text: string }[]) turns.push({ id: t.dia_id, text: t.text });
      const db = openDatabase(join(dir, `c${si}.db`));
      const plain = openDatabase(':memory:').raw;
      try {
        plain.exec("create virtual table f using fts5(body, cjk, scope, content='', tokenize='unicode61 remove_diacritics 2')");
        db.raw.prepare("insert into projects (id, name, slug) values ('p_c', 'c', 'c')").run();
        db.raw.prepare("insert into sessions (id, project_id) values ('s', 'p_c')").run();
        const ins = db.raw.prepare("insert into messages (id, session_id, role, content) values (?, 's', 'user', ?)");
        const insPlain = plain.prepare("insert into f (rowid, body, cjk, scope) values (?, ?, '', '')");
        db.raw.transaction(() => {
          turns.forEach((t, i) => {
            ins.run(i + 1, t.text);
            insPlain.run(i + 1, t.text);
          });
          indexMessages(db.raw, turns.map((t, i) => ({ id: i + 1, content: t.text })));
        })();
        const plainQuery = plain.prepare('select rowid from f where f match ? order by bm25(f) limit 10').pluck();
        for (const qa of sample.qa) {
          if (qa.category === 5) continue;
          const evidence = (qa.evidence ?? []).flatMap((e) => String(e).split(/[;,]/)).map(norm).filter((e): e is string => e !== null);
          if (evidence.length === 0) continue;
          n++;
          const question = String(qa.question);
          const shipped = keywordSearch(db, { kind: 'project', projectId: 'p_c' }, question, { limit: 10, titleLimit: 0 }).hits.map((h) => norm(turns[h.messageId - 1]!.id));
          const match = parseQuery(question).match;
          const unstemmed = match ? (plainQuery.all(match) as number[]).map((id) => norm(turns[id - 1]!.id)) : [];
          for (const [name, got] of [['shipped', shipped], ['unicode61', unstemmed]] as const) {
            totals[name][0]! += evidence.filter((e) => got.slice(0, 5).includes(e)).length / evidence.length;
            totals[name][1]! += evidence.filter((e) => got.slice(0, 10).includes(e)).length / evidence.length;
          }
        }
      } finally {
        db.close();
        plain.close();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    `English sanity check, LoCoMo categories 1–4 (${n} questions, one project per conversation):`,
    '| index / query | recall@5 | recall@10 |',
    '|---|---|---|',
    `| shipped (porter unicode61, stop-words dropped, OR + BM25) | ${(totals.shipped[0]! / n).toFixed(3)} | ${(totals.shipped[1]! / n).toFixed(3)} |`,
    `| same query on unicode61 without stemming | ${(totals.unicode61[0]! / n).toFixed(3)} | ${(totals.unicode61[1]! / n).toFixed(3)} |`,
    '| reference in ../shared/data/README.md (porter unicode61, non-stop-words OR-ed) | 0.523 | 0.604 |',
  ];
}

function main(): void {
  exitOnHelp(USAGE);
  const bankPath = sharedDataPath('memorybank', 'memory_bank_cn.json');
  const bank = readJsonIfExists<MemoryBank>(bankPath);
  if (!bank) {
    console.log(`cjk-bench: ${bankPath} not found; this benchmark needs the shared MemoryBank data. Skipped.`);
    return;
  }
  const devFile = join(STORE_ROOT, 'test', 'fixtures', 'cjk-dev-queries.json');
  const dev = readJsonIfExists<{ queries: DevQuery[] }>(devFile);
  if (!dev) throw new Error('dev query fixture missing');
  if (argValue('messages') !== undefined) {
    runAtScale(bank, loadDocs(bank), dev.queries.filter((q) => q.targets.length > 0), 'packages/store/test/fixtures/cjk-dev-queries.json');
    return;
  }
  const copies = argNumber('copies', 40);
  const rounds = argNumber('rounds', 3);
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const docs = loadDocs(bank);
  // `foreign` questions have no target in the asker's project; the eval (gateway-rpc) reports them.
  const queries = dev.queries.filter((q) => q.targets.length > 0);
  const kinds = [...new Set(queries.map((q) => q.kind ?? 'exact'))];
  console.log(`# cjk-bench — ${new Date().toISOString()}`);
  console.log(`machine: ${machine()}`);
  console.log(`corpus: ${docs.length} messages (${Object.keys(bank).length} users), ${queries.length} dev questions; latency: corpus ×${copies} = ${docs.length * copies} messages in one project, ${rounds} rounds\n`);

  // Latency corpus: `copies` copies of every conversation, all in ONE project (the scale of a large
  // project), so every query scans a realistic number of candidates.
  const scaled: Doc[] = [];
  for (let c = 0; c < copies; c++) for (const d of docs) scaled.push({ ...d, id: scaled.length + 1, session: `${d.session}#${c}` });

  const rows: string[] = [];
  rows.push(`| approach | own project: R@1 / R@5 / MRR | own project R@1 / R@5 by kind (${kinds.join(' · ')}) | all users in one project: R@1 / R@5 / MRR | build ${scaled.length} msgs | DB size | query p50 | query p95 |`);
  rows.push('|---|---|---|---|---|---|---|---|');
  const fmt = (q: Quality): string => `${q.r1.toFixed(3)} / **${q.r5.toFixed(3)}** / ${q.mrr.toFixed(3)}`;
  const measured: { name: string; r5: number; p95: number }[] = [];
  for (const a of approaches) {
    if (only && !a.name.startsWith(only)) continue;
    const dirs: string[] = [];
    const tmp = (): string => {
      const d = mkdtempSync(join(tmpdir(), 'recall-cjk-bench-'));
      dirs.push(d);
      return d;
    };
    try {
      const perUser = a.build(tmp(), docs, (d) => d.user);
      const scoped = quality(perUser, queries, docs, (q) => q.user);
      const kindR5s = kinds.map((k) => {
        const kq = quality(perUser, queries.filter((q) => (q.kind ?? 'exact') === k), docs, (q) => q.user);
        return `${kq.r1.toFixed(3)} / ${kq.r5.toFixed(3)}`;
      });
      const byKind = kinds.map((k, i) => `${k} ${kindR5s[i]}`);
      perUser.close();
      const oneProject = a.build(tmp(), docs, () => 'all');
      const global = quality(oneProject, queries, docs, () => 'all');
      oneProject.close();

      const t0 = performance.now();
      const big = a.build(tmp(), scaled, () => 'big');
      const buildMs = performance.now() - t0;
      const lat: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of queries) {
          const t = performance.now();
          big.search('big', q.query, K);
          lat.push(performance.now() - t);
        }
      }
      const s = stats(lat);
      const size = big.bytes();
      big.close();
      measured.push({ name: a.name, r5: scoped.r5, p95: s.p95 });
      const kindR5 = kindR5s.join(' · ');
      rows.push(`| ${a.name} | ${fmt(scoped)} | ${kindR5} | ${fmt(global)} | ${(buildMs / 1000).toFixed(1)} s | ${mib(size)} | ${ms(s.p50)} | ${ms(s.p95)} |`);
      console.log(`${a.name}: R@${K} ${scoped.r5.toFixed(3)} / ${global.r5.toFixed(3)}; own project R@1 / R@${K} by kind: ${byKind.join(', ')}; misses@${K} own project: ${scoped.misses.join(' ') || '-'}; one project: ${global.misses.join(' ') || '-'}`);
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  }
  console.log('\n' + rows.join('\n'));
  if (!only) console.log('\n' + englishSanity().join('\n'));
  // One machine-readable line for `pnpm bench`: the shipped approach against plain unicode61 FTS5.
  const shipped = measured.find((m) => m.name.startsWith('shipped') && m.name.includes('auto'));
  const plain = measured.find((m) => m.name.startsWith('unicode61 only'));
  if (shipped) {
    const summary: Record<string, unknown> = { bench: 'cjk', questions: queries.length, shipped_r5: Number(shipped.r5.toFixed(3)), shipped_p95_ms: Number(shipped.p95.toFixed(2)) };
    if (plain) Object.assign(summary, { plain_unicode61_r5: Number(plain.r5.toFixed(3)), r5_vs_plain_fts5: Number((shipped.r5 / plain.r5).toFixed(2)), p95_vs_plain_fts5: Number((shipped.p95 / plain.p95).toFixed(2)) });
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
  }
}

main();
