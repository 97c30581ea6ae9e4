/**
 * `pnpm tune:fusion [--data DIR] [--cache DIR]` — the offline measurement behind search-tool's
 * fusion.ts. LoCoMo (../shared/data/locomo/locomo10.json, read in place) is loaded by the eval's
 * loader (speaker prefix off: the stored text is the turn, plus its photo caption), imported through
 * the real importer into a temp profile (one project per conversation), and for every question it
 * records the two candidate lists the tool would fuse (80 = limit 10 × 8 candidates each): the
 * store's keywordSearch inside the project, and the exact top-80 by cosine over the project's
 * message vectors from the built-in USE-lite model (LoCoMo turns are short, so one chunk per
 * message). Embeddings are cached in a file under the OS temp dir (not in the repo) so reruns
 * take seconds. It then scores message-level recall@10 (fraction of a question's evidence turns
 * among the first 10 fused anchors) for keyword alone, semantic alone, weighted RRF over a grid of
 * k / keyword weight / similarity floor, and keyword-first with semantic rescue, per category, on
 * the dev half (conversations 0–4). The chosen form maximises dev recall with no dev category
 * below keyword; only then are the test half's (5–9) numbers printed. A command, not a test.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { FUSION_DEFAULTS, fuseRankings, type FusionParams } from '@recall/search-tool/internal';
import { createProvider, parseSemanticConfig, type EmbeddingProvider } from '@recall/semantic';
import { scanTopK, type VectorMatrix } from '@recall/semantic/internal';
import { keywordSearch } from '@recall/store';
import { askerSessionId, DEFAULT_DATA_DIR, importDataset, loadLocomo, type LocomoConversation } from '@recall/eval';
import { exitOnHelp } from './util.js';

const USAGE = `Usage: pnpm tune:fusion [options]   (node tooling/bench/dist/fusion-tune.js [options])
The offline measurement behind search-tool's fusion defaults: LoCoMo recall@10 of keyword, semantic
(built-in USE-lite) and fusion variants, chosen on the dev half, then measured on the test half.
Needs ../shared/data/locomo/locomo10.json.
  --data DIR    shared evaluation data (default ../shared/data)
  --cache DIR   embedding cache (default: recall-fusion-tune under the OS temp dir)
  --top N       fusion variants shown (default 12)
  -h, --help    print this and exit`;

/** Candidates per list, as the tool fetches for limit 10 (discover.ts: limit × 8). */
export const TUNE_CANDIDATES = 80;
export const TUNE_AT = 10;

export interface TuneQuestion {
  id: string;
  split: 'dev' | 'test';
  category: string;
  /** Evidence units (turn ids) of the question. */
  units: string[];
  keyword: number[];
  semantic: Array<{ key: number; score: number }>;
  /** message id → evidence unit, for the candidates of this question. */
  unitOf: Map<number, string>;
}

/** A cache of unit vectors by sha256(model + text), one JSON line each, outside the repository. */
class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  constructor(
    private readonly file: string,
    private readonly model: string,
  ) {
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        const { h, v } = JSON.parse(line) as { h: string; v: string };
        const b = Buffer.from(v, 'base64');
        this.vectors.set(h, new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
      }
    }
  }
  key(text: string): string {
    // USE-lite entries are keyed by the text alone (the cache file name carries the model).
    return createHash('sha256').update(this.model === 'use-lite' ? text : `${this.model}\u0000${text}`).digest('hex');
  }
  get(text: string): Float32Array | undefined {
    return this.vectors.get(this.key(text));
  }
  async fill(texts: readonly string[], provider: EmbeddingProvider, progress: (done: number, total: number) => void): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => !this.vectors.has(this.key(t)));
    for (let i = 0; i < missing.length; i += 32) {
      const batch = missing.slice(i, i + 32);
      const rows = await provider.embed(batch);
      let out = '';
      rows.forEach((v, j) => {
        const h = this.key(batch[j]!);
        this.vectors.set(h, v);
        out += `${JSON.stringify({ h, v: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') })}\n`;
      });
      appendFileSync(this.file, out);
      progress(Math.min(i + 32, missing.length), missing.length);
    }
  }
}

/** Imports LoCoMo and computes both candidate lists for every scored question. */
export async function prepareLocomoTuning(options: { dataDir: string; cacheDir: string; log?: (line: string) => void }): Promise<TuneQuestion[]> {
  const log = options.log ?? (() => {});
  const raw = JSON.parse(readFileSync(join(options.dataDir, 'locomo', 'locomo10.json'), 'utf8')) as LocomoConversation[];
  const dataset = loadLocomo(raw, { speakerPrefix: false });
  const home = mkdtempSync(join(tmpdir(), 'recall-fusion-tune-'));
  const db: RecallDatabase = openDatabase(join(home, 'recall.db'));
  try {
    await importDataset(db, dataset);
    const rows = db.raw.prepare('select m.id, m.session_id as sessionId, m.external_id as externalId, m.content, s.project_id as projectId from messages m join sessions s on s.id = m.session_id order by m.id').all() as Array<{
      id: number;
      sessionId: string;
      externalId: string | null;
      content: string;
      projectId: string;
    }>;
    mkdirSync(options.cacheDir, { recursive: true });
    const cache = new EmbeddingCache(join(options.cacheDir, 'use-lite-embeddings.jsonl'), 'use-lite');
    const texts = [...rows.map((r) => r.content), ...dataset.questions.map((q) => q.query)];
    const config = parseSemanticConfig({ enabled: true, provider: 'use-lite' })!;
    const provider = createProvider(config);
    try {
      await cache.fill(texts, provider, (done, total) => {
        if (done % 320 === 0 || done === total) log(`embedded ${done}/${total} new texts`);
      });
    } finally {
      await provider.close();
    }
    const byProject = new Map<string, { matrix: VectorMatrix; ids: number[] }>();
    for (const projectId of new Set(rows.map((r) => r.projectId))) {
      const mine = rows.filter((r) => r.projectId === projectId);
      const data = new Float32Array(mine.length * config.dims);
      mine.forEach((r, i) => data.set(cache.get(r.content)!, i * config.dims));
      byProject.set(projectId, { matrix: { dims: config.dims, rows: mine.length, data }, ids: mine.map((r) => r.id) });
    }
    const keyOf = new Map(rows.map((r) => [r.id, `${r.sessionId}|${r.externalId ?? ''}`]));
    const out: TuneQuestion[] = [];
    for (const q of dataset.questions) {
      if (q.evidence.length === 0) continue;
      const unitByKey = new Map(q.evidence.map((e) => [`${e.sessionId}|${e.externalId}`, e.unit]));
      const keyword = keywordSearch(db, { kind: 'project', projectId: q.projectId, excludeSessionIds: [askerSessionId(q.projectId)] }, q.query, { limit: TUNE_CANDIDATES, titleLimit: 0 }).hits.map((h) => h.messageId);
      const project = byProject.get(q.projectId)!;
      const semantic = scanTopK(project.matrix, cache.get(q.query)!, { k: TUNE_CANDIDATES }).map((h) => ({ key: project.ids[h.row]!, score: h.score }));
      const unitOf = new Map<number, string>();
      for (const id of [...keyword, ...semantic.map((s) => s.key)]) {
        const unit = unitByKey.get(keyOf.get(id) ?? '');
        if (unit !== undefined) unitOf.set(id, unit);
      }
      out.push({ id: q.id, split: q.split, category: q.category, units: [...new Set(q.evidence.map((e) => e.unit))], keyword, semantic, unitOf });
    }
    return out;
  } finally {
    db.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export type Ranker = (q: TuneQuestion) => number[];

export const keywordRanker: Ranker = (q) => q.keyword;
export const semanticRanker: Ranker = (q) => q.semantic.map((s) => s.key);
export const fusionRanker =
  (params: FusionParams): Ranker =>
  (q) =>
    fuseRankings(q.keyword, q.semantic, params).map((f) => f.key);

export interface Scores {
  overall: number;
  n: number;
  byCategory: Record<string, { recall: number; n: number }>;
}

/** Message-level recall@at: the fraction of each question's evidence turns among the first `at` anchors, averaged. */
export function recallAt(questions: readonly TuneQuestion[], rank: Ranker, at = TUNE_AT): Scores {
  const sums = new Map<string, { s: number; n: number }>();
  let total = 0;
  for (const q of questions) {
    const found = new Set(rank(q).slice(0, at).map((id) => q.unitOf.get(id)).filter((u): u is string => u !== undefined));
    const r = q.units.filter((u) => found.has(u)).length / q.units.length;
    total += r;
    const c = sums.get(q.category) ?? { s: 0, n: 0 };
    c.s += r;
    c.n++;
    sums.set(q.category, c);
  }
  const byCategory: Scores['byCategory'] = {};
  for (const [cat, { s, n }] of [...sums.entries()].sort()) byCategory[cat] = { recall: s / n, n };
  return { overall: total / Math.max(1, questions.length), n: questions.length, byCategory };
}

export interface Variant {
  name: string;
  rank: Ranker;
  params?: FusionParams;
}

/** The grid the dev half chooses from (plus the two single lists as references). */
export function fusionVariants(): Variant[] {
  const out: Variant[] = [
    { name: 'keyword alone', rank: keywordRanker },
    { name: 'semantic alone', rank: semanticRanker },
  ];
  for (const k of [1, 5, 10, 20, 60]) {
    for (const keywordWeight of [1, 1.5, 2, 3, 4]) {
      for (const similarityFloor of [0, 0.3, 0.4, 0.5, 0.6]) {
        const params: FusionParams = { form: 'weighted-rrf', k, keywordWeight, semanticWeight: 1, similarityFloor };
        out.push({ name: `RRF k=${k} kw×${keywordWeight} floor ${similarityFloor}`, rank: fusionRanker(params), params });
      }
    }
  }
  for (const similarityFloor of [0, 0.3, 0.4, 0.5, 0.6, 0.7]) {
    const params: FusionParams = { form: 'keyword-first', k: 10, keywordWeight: 1, semanticWeight: 1, similarityFloor };
    out.push({ name: `keyword-first + semantic rescue, floor ${similarityFloor}`, rank: fusionRanker(params), params });
  }
  return out;
}

/** Best dev recall among variants with no dev category below keyword alone (ties: simpler first). */
export function chooseOnDev(dev: readonly TuneQuestion[], variants: readonly Variant[]): { chosen: Variant; scores: Map<Variant, Scores> } {
  const scores = new Map(variants.map((v) => [v, recallAt(dev, v.rank)]));
  const kw = scores.get(variants[0]!)!;
  const safe = variants.filter((v) => v.params && Object.entries(scores.get(v)!.byCategory).every(([c, s]) => s.recall >= (kw.byCategory[c]?.recall ?? 0)));
  const pool = safe.length > 0 ? safe : variants.filter((v) => v.params);
  const chosen = pool.reduce((best, v) => (scores.get(v)!.overall > scores.get(best)!.overall + 1e-12 ? v : best));
  return { chosen, scores };
}

function row(name: string, s: Scores, cats: readonly string[]): string {
  return `| ${name} | ${s.overall.toFixed(3)} | ${cats.map((c) => (s.byCategory[c] ? s.byCategory[c]!.recall.toFixed(3) : '—')).join(' | ')} |`;
}

async function main(): Promise<void> {
  exitOnHelp(USAGE);
  const { values } = parseArgs({ options: { data: { type: 'string' }, cache: { type: 'string' }, top: { type: 'string' } } });
  const dataDir = values.data ?? DEFAULT_DATA_DIR;
  const cacheDir = values.cache ?? join(tmpdir(), 'recall-fusion-tune');
  const t0 = Date.now();
  const questions = await prepareLocomoTuning({ dataDir, cacheDir, log: (l) => console.error(l) });
  const dev = questions.filter((q) => q.split === 'dev');
  const test = questions.filter((q) => q.split === 'test');
  const variants = fusionVariants();
  const { chosen, scores } = chooseOnDev(dev, variants);
  const cats = [...new Set(questions.map((q) => q.category))].sort();
  const header = `| variant | all | ${cats.join(' | ')} |\n|---|---:|${cats.map(() => '---:').join('|')}|`;
  console.log(`# tune:fusion — ${new Date().toISOString()} (${((Date.now() - t0) / 1000).toFixed(0)} s; embeddings cached in ${cacheDir})`);
  console.log(`LoCoMo message-level recall@${TUNE_AT}, ${TUNE_CANDIDATES} candidates per list, USE-lite (512-d), stored text without speaker prefix.`);
  console.log(`dev = conversations 0–4 (${dev.length} questions with evidence), test = 5–9 (${test.length}).\n`);
  console.log(`## dev: references and the best ${Number(values.top ?? 12)} fusion variants\n${header}`);
  const ranked = [...variants].sort((a, b) => scores.get(b)!.overall - scores.get(a)!.overall);
  const shown = new Set<Variant>([variants[0]!, variants[1]!, ...ranked.filter((v) => v.params).slice(0, Number(values.top ?? 12))]);
  for (const name of ['RRF k=60 kw×1 floor 0', 'RRF k=60 kw×2 floor 0', 'RRF k=10 kw×2 floor 0', 'keyword-first + semantic rescue, floor 0']) {
    const v = variants.find((x) => x.name === name);
    if (v) shown.add(v);
  }
  for (const v of shown) console.log(row(v.name + (v === chosen ? ' ← chosen' : ''), scores.get(v)!, cats));
  console.log(`\nchosen on dev: ${chosen.name} ${JSON.stringify(chosen.params)}; shipped FUSION_DEFAULTS ${JSON.stringify(FUSION_DEFAULTS)}`);
  console.log(`\n## test (conversations 5–9), measured once with the dev choice\n${header}`);
  const shipped: Variant = { name: 'shipped FUSION_DEFAULTS', rank: fusionRanker(FUSION_DEFAULTS), params: FUSION_DEFAULTS };
  for (const v of [variants[0]!, variants[1]!, variants.find((x) => x.name === 'RRF k=60 kw×1 floor 0')!, chosen, shipped]) console.log(row(v.name, recallAt(test, v.rank), cats));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
