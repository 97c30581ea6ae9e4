/**
 * The synthetic chat corpus of the keyword benches (bench:keyword, and bench:cjk's `--messages`
 * mode): text sources (MemoryBank CN / LoCoMo / MemoryBank EN sentences read in place, generated
 * technical sentences and identifiers), message mixes, project sizes (the largest 10 %, at most
 * 100k; the rest Zipf-like) and the write loop through the store's real write path
 * (createProject / createSession / appendMessages inside bulkWrite batches). Seeded: the same seed
 * gives the same corpus. One generator, so both benches measure the same data.
 */
import type { RecallDatabase } from '@recall/schema';
import { appendMessages, bulkWrite, createProject, createSession, writeTransaction, type NewMessage } from '@recall/store';
import { segmentWords } from '@recall/store/internal';
import { join } from 'node:path';
import { readJsonIfExists, rng, sharedDataPath, STORE_ROOT } from './util.js';

const EN_COMMON = (
  'the a to of and in is it for that on we with this be you not are as was have but can at or if from by ' +
  'should need use run fix add test build change update check error file code data value function return call ' +
  'server client request response query index table cache config setting option version release deploy branch merge ' +
  'commit review issue bug failing works problem case default path input output message session project user model ' +
  'retry timeout backoff connection database migration schema search result performance latency memory thread ' +
  'process queue worker job task log debug trace stack exception handler event stream buffer batch limit page ' +
  'decide decided plan idea maybe think know want try again later today yesterday tomorrow still already'
).split(' ');
const EN_RARE_PARTS = (
  'busy conn reset retry backoff pool socket lease token vector chunk shard lock wal fsync parser lexer ' +
  'router tenant quota budget cursor offset epoch ledger bloom trie heap arena slab mutex latch probe ' +
  'sink source frame codec muxer nonce salt hash digest cipher rotor gauge meter span trace'
).split(' ');
export const EN_RARE_WORDS = (
  'kubernetes terraform prometheus grafana nginx haproxy postgres clickhouse rabbitmq kafka zookeeper etcd ' +
  'flamegraph backpressure idempotency tombstone compaction checkpoint deadlock livelock starvation ' +
  'quicksort bisect monorepo sandbox webhook cronjob serializer tokenizer embedding quantization'
).split(' ');
export const ZH_WORDS = (
  '数据库 迁移 索引 查询 性能 问题 修复 测试 部署 服务器 配置 文件 超时 重试 日志 错误 用户 项目 会话 消息 ' +
  '搜索 缓存 内存 线程 进程 网络 连接 接口 版本 发布 代码 函数 参数 返回 结果 页面 按钮 样式 组件 构建 ' +
  '依赖 升级 回滚 备份 权限 登录 注册 密码 加密 队列 任务 调度 监控 告警 延迟 吞吐 压缩 分片 事务 锁 ' +
  '今天 明天 周末 旅游 电影 音乐 朋友 吃饭 蒸鱼 鲈鱼 做菜 公园 散步 咖啡 读书 小说 跑步 健身 天气 会议 ' +
  '我们 需要 因为 所以 但是 已经 可以 应该 还是 觉得 建议 方案 讨论 决定 上次 之前 现在 后来 非常 比较'
).split(' ');
const ZH_GLUE = '的 了 在 是 和 把 被 就 也 都 要 会'.split(' ');

/** Zipf-ish pick: index ~ floor(n * u^2.5) favours the start of the list. */
export function zipf<T>(list: readonly T[], r: () => number): T {
  return list[Math.min(list.length - 1, Math.floor(list.length * Math.pow(r(), 2.5)))]!;
}
export function pick<T>(list: readonly T[], r: () => number): T {
  return list[Math.floor(r() * list.length)]!;
}

export interface Corpus {
  /** Chinese sentences (MemoryBank CN when available). */
  zh: string[];
  /** English chat sentences (LoCoMo + MemoryBank EN when available). */
  en: string[];
  /** Vocabulary of generated technical sentences, most frequent first (Zipf-sampled). */
  techVocab: string[];
  identifiers: string[];
  source: string;
}

function sentences(text: string): string[] {
  return text.split(/(?<=[。！？!?.])\s*/).filter((s) => s.trim().length > 2);
}

/**
 * Text sources. Real conversation text makes word frequencies realistic (a common word is in a few
 * percent of messages, not in half of them); `--dense` uses only the small built-in vocabulary,
 * a stress case where every English word is very frequent.
 */
export function buildCorpus(r: () => number, dense: boolean, options: CorpusOptions = {}): Corpus {
  const zh: string[] = [];
  const en: string[] = [];
  const sourceNotes: string[] = [];
  type Bank = Record<string, { history: Record<string, { query: string; response: string }[]> }>;
  const cn = dense ? null : readJsonIfExists<Bank>(sharedDataPath('memorybank', 'memory_bank_cn.json'));
  if (cn) {
    for (const user of Object.values(cn)) for (const turns of Object.values(user.history)) for (const t of turns) zh.push(...sentences(t.query), ...sentences(t.response));
    sourceNotes.push(`${zh.length} Chinese sentences from MemoryBank CN`);
  } else {
    for (let i = 0; i < 5000; i++) {
      const words: string[] = [];
      const n = 4 + Math.floor(r() * 8);
      for (let k = 0; k < n; k++) words.push(zipf(ZH_WORDS, r), r() < 0.4 ? pick(ZH_GLUE, r) : '');
      zh.push(words.join('') + '。');
    }
    sourceNotes.push('Chinese generated from the built-in vocabulary');
  }
  const enBank = dense ? null : readJsonIfExists<Bank>(sharedDataPath('memorybank', 'memory_bank_en.json'));
  const locomo = dense ? null : readJsonIfExists<{ conversation: Record<string, unknown> }[]>(sharedDataPath('locomo', 'locomo10.json'));
  if (enBank) for (const user of Object.values(enBank)) for (const turns of Object.values(user.history)) for (const t of turns) en.push(...sentences(t.query), ...sentences(t.response));
  if (locomo)
    for (const sample of locomo)
      for (const [key, value] of Object.entries(sample.conversation))
        if (/^session_\d+$/.test(key) && Array.isArray(value)) for (const turn of value as { text?: string }[]) if (turn.text) en.push(...sentences(turn.text));
  // Technical vocabulary: the built-in words interleaved with the chat vocabulary by frequency.
  const freq = new Map<string, number>();
  for (const sentence of en) for (const w of sentence.toLowerCase().match(/[a-z]+/g) ?? []) freq.set(w, (freq.get(w) ?? 0) + 1);
  const chatVocab = [...freq.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const techVocab: string[] = [];
  for (let i = 0; i < Math.max(EN_COMMON.length, chatVocab.length); i++) {
    if (i < EN_COMMON.length) techVocab.push(EN_COMMON[i]!);
    if (i < chatVocab.length) techVocab.push(chatVocab[i]!);
  }
  if (en.length > 0) sourceNotes.push(`${en.length} English sentences from LoCoMo + MemoryBank EN`);
  else sourceNotes.push(dense ? 'English generated from the small built-in vocabulary (--dense)' : 'English generated (shared data folder not found)');
  // ~20k rare identifiers in the styles people paste: snake_case, dotted files, kebab, error codes.
  const identifiers: string[] = [];
  const seps = ['_', '.', '-'];
  for (const a of EN_RARE_PARTS)
    for (const b of EN_RARE_PARTS) {
      if (a === b) continue;
      identifiers.push(`${a}${pick(seps, r)}${b}`);
      identifiers.push(`E_${a.toUpperCase()}_${b.toUpperCase()}`);
      if (r() < 0.3) identifiers.push(`${a}_${b}.yaml`);
    }
  if (cn && options.chinese === 'resampled') {
    const real = zh.splice(0, zh.length);
    zh.push(...resampleChinese(real, options.resampleSeed ?? 20261201));
    sourceNotes[0] = `${zh.length} Chinese sentences resampled word by word from MemoryBank CN's ${real.length} (no sentence of the logs verbatim)`;
  }
  return { zh, en, techVocab, identifiers, source: sourceNotes.join('; ') };
}

export function techSentence(r: () => number, c: Corpus): string {
  const n = 6 + Math.floor(r() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(r() < 0.03 ? pick(EN_RARE_WORDS, r) : zipf(c.techVocab, r));
  if (r() < 0.35) words.splice(Math.floor(r() * words.length), 0, pick(c.identifiers, r));
  const s = words.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + '.';
}

export function englishSentence(r: () => number, c: Corpus): string {
  return c.en.length > 0 && r() < 0.6 ? pick(c.en, r) : techSentence(r, c);
}

export function messageText(r: () => number, c: Corpus): string {
  const kind = r();
  const parts: string[] = [];
  const count = (max: number) => 1 + Math.floor(r() * max);
  if (kind < 0.35) for (let i = count(3); i > 0; i--) parts.push(pick(c.zh, r));
  else if (kind < 0.65) for (let i = count(4); i > 0; i--) parts.push(englishSentence(r, c));
  else if (kind < 0.85) for (let i = count(3); i > 0; i--) parts.push(techSentence(r, c));
  // Mixed: `修复 busy_timeout 问题` style.
  else parts.push(`${zipf(ZH_WORDS, r)} ${pick(c.identifiers, r)} ${zipf(ZH_WORDS, r)}`, pick(c.zh, r), englishSentence(r, c));
  // A few long tool-output-like messages.
  if (r() < 0.03) for (let i = 0; i < 15; i++) parts.push(techSentence(r, c));
  return parts.join(' ');
}

/** Project sizes: the largest gets 10% (≤100k), the rest a Zipf-like share of the remainder. */
export function projectSizes(total: number, projects: number): number[] {
  const largest = Math.min(100_000, Math.round(total * 0.1));
  const rest = total - largest;
  const weights = Array.from({ length: projects - 1 }, (_, i) => 1 / Math.pow(i + 2, 0.6));
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = [largest, ...weights.map((w) => Math.floor((rest * w) / sum))];
  sizes[1]! += total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}


export interface CorpusOptions {
  /**
   * `sentences` (default): MemoryBank CN sentences as they are. `resampled`: sentences of the same
   * word lengths whose words are drawn from the logs' word frequencies (Intl.Segmenter words), so
   * characters, words and their document frequencies are the logs' but no sentence of the logs
   * occurs verbatim — distractors for questions whose answers are in those logs (bench:cjk).
   */
  chinese?: 'sentences' | 'resampled';
  /** Seed of the resampling (its own PRNG, so the rest of the corpus stays identical). */
  resampleSeed?: number;
}

/** Resampled sentences per real one: enough variety that the pool itself repeats little. */
const RESAMPLE_FACTOR = 10;

/** Word-frequency resampling of Chinese sentences (see CorpusOptions.chinese). */
export function resampleChinese(real: readonly string[], seed: number): string[] {
  const r = rng(seed);
  const words: string[] = [];
  const shapes: { n: number; end: string }[] = [];
  for (const s of real) {
    const ws = segmentWords(s).filter((w) => /[\p{L}\p{N}]/u.test(w));
    words.push(...ws);
    shapes.push({ n: Math.max(1, ws.length), end: /[。！？!?.]$/.test(s) ? s.slice(-1) : '。' });
  }
  const out: string[] = [];
  if (words.length === 0) return [...real];
  for (let i = 0; i < real.length * RESAMPLE_FACTOR; i++) {
    const shape = shapes[Math.floor(r() * shapes.length)]!;
    let text = '';
    for (let k = 0; k < shape.n; k++) {
      const w = words[Math.floor(r() * words.length)]!;
      // Latin words keep a space around them, as in the logs; CJK words are written together.
      text += /^[\p{Script=Latin}\p{N}]/u.test(w) ? ` ${w} ` : w;
    }
    out.push(text.trim().replace(/\s+/g, ' ') + shape.end);
  }
  return out;
}

export interface WriteCorpusOptions {
  total: number;
  projectCount: number;
  /** Messages per write batch (one bulkWrite). */
  batchMessages: number;
  r: () => number;
  corpus: Corpus;
  /**
   * Called for every generated message in order, right after its text is drawn, with the same PRNG
   * (a hook that draws from it changes the rest of the corpus, deterministically).
   */
  onMessage?: (content: string, project: number, index: number, r: () => number) => void;
  /** Progress lines (every 100k messages and at the end). */
  log: (line: string) => void;
}

export interface WrittenCorpus {
  projectIds: string[];
  sizes: number[];
  written: number;
  /** Wall time inside the write batches. */
  writeMs: number;
  /** CPU time of this process inside the write batches. */
  cpuMs: number;
  /** Wall time including text generation. */
  wallSecs: number;
}

/**
 * Writes the corpus: projects `p_bench0..`, sessions of 10–70 messages shuffled over all projects
 * (a project's message ids spread over the whole id range, as when many projects are active at
 * once), one bulkWrite per ~batchMessages messages; text generation is outside the timed part.
 */
export function writeCorpus(db: RecallDatabase, o: WriteCorpusOptions): WrittenCorpus {
  const { r, corpus } = o;
  const sizes = projectSizes(o.total, o.projectCount);
  const plan: { project: number; messages: number }[] = [];
  sizes.forEach((size, p) => {
    let left = size;
    while (left > 0) {
      const n = Math.min(left, 10 + Math.floor(r() * 61));
      plan.push({ project: p, messages: n });
      left -= n;
    }
  });
  for (let i = plan.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [plan[i], plan[j]] = [plan[j]!, plan[i]!];
  }
  const projectIds: string[] = [];
  writeTransaction(db, () => {
    for (let p = 0; p < o.projectCount; p++) projectIds.push(createProject(db, { id: `p_bench${p}`, name: `Bench project ${p}` }).id);
  });
  let written = 0;
  let lastReport = 0;
  let writeMs = 0;
  // CPU time of this process during the writes: SQLite runs on this thread, so on a shared,
  // busy machine CPU time is the steadier measure; wall time is what a user would see.
  let cpuMs = 0;
  let t = Date.UTC(2025, 0, 1);
  const t0 = performance.now();
  let i = 0;
  while (i < plan.length) {
    // Generate ~batchMessages messages (several whole sessions) first, untimed: the rate measures
    // the store's write path, not this generator.
    const batch: { id: string; projectId: string; title: string; source: string; startedAt: number; messages: NewMessage[] }[] = [];
    let inBatch = 0;
    while (i < plan.length && inBatch < o.batchMessages) {
      const s = plan[i]!;
      const session = {
        id: `s${i}`,
        projectId: projectIds[s.project]!,
        title: r() < 0.5 ? pick(corpus.zh, r).slice(0, 30) : englishSentence(r, corpus).slice(0, 60),
        source: r() < 0.05 ? 'cron' : 'desktop',
        startedAt: t,
        messages: [] as NewMessage[],
      };
      for (let k = 0; k < s.messages; k++) {
        const content = messageText(r, corpus);
        o.onMessage?.(content, s.project, written + inBatch + k, r);
        session.messages.push({ role: k % 2 === 0 ? 'user' : 'assistant', content, createdAt: (t += 1000) });
      }
      batch.push(session);
      inBatch += s.messages;
      i++;
    }
    // One atomic write batch (bulkWrite: no per-call savepoints), through the store's own functions.
    const w0 = performance.now();
    const c0 = process.cpuUsage();
    bulkWrite(db, () => {
      for (const b of batch) {
        createSession(db, { id: b.id, projectId: b.projectId, title: b.title, source: b.source, startedAt: b.startedAt });
        appendMessages(db, b.id, b.messages);
      }
    });
    writeMs += performance.now() - w0;
    const c1 = process.cpuUsage(c0);
    cpuMs += (c1.user + c1.system) / 1000;
    written += inBatch;
    if (written - lastReport >= 100_000 || i === plan.length) {
      o.log(`  ingested ${written.toLocaleString('en')} messages, ${Math.round(written / (writeMs / 1000)).toLocaleString('en')} msg/s (write path)`);
      lastReport = written;
    }
  }
  return { projectIds, sizes, written, writeMs, cpuMs, wallSecs: (performance.now() - t0) / 1000 };
}

/** One keyword question of bench:keyword and its same-run A/B (keyword-ab.ts). */
export interface QueryCase {
  kind: 'common' | 'rare' | 'cjk';
  text: string;
}

/**
 * bench:keyword's questions, `perKind` of each kind in this order: `common` = templates over the
 * corpus's most frequent English words; `rare` = identifiers (none when the list is empty); `cjk` =
 * every other one a hand-written Chinese dev question (store test/fixtures/cjk-dev-queries.json),
 * the rest templates over frequent Chinese words. Seeded by `r`.
 */
export function keywordQuestions(r: () => number, perKind: number, common: readonly string[], identifiers: readonly string[]): QueryCase[] {
  const out: QueryCase[] = [];
  const enTemplates = [
    (a: string, b: string) => `what did we decide about the ${a} ${b}?`,
    (a: string, b: string) => `${a} ${b}`,
    (a: string, b: string) => `why does the ${a} keep failing after ${b}`,
    (a: string, b: string) => `how did we ${a} the ${b} last time`,
  ];
  for (let i = 0; i < perKind; i++) out.push({ kind: 'common', text: pick(enTemplates, r)(pick(common, r), pick(common, r)) });
  for (let i = 0; i < perKind && identifiers.length > 0; i++) {
    const id = pick(identifiers, r);
    out.push({ kind: 'rare', text: i % 3 === 0 ? `why did ${id} fail` : i % 3 === 1 ? id : `${pick(EN_RARE_WORDS, r)} ${id}` });
  }
  const dev = readJsonIfExists<{ queries: { query: string }[] }>(join(STORE_ROOT, 'test', 'fixtures', 'cjk-dev-queries.json'))?.queries ?? [];
  const zhTemplates = [
    (a: string, b: string) => `我上次说的那个${a}${b}问题怎么解决？`,
    (a: string, b: string) => `${a}${b}`,
    (a: string, b: string) => `之前讨论的${a}和${b}是怎么决定的`,
    (a: string, b: string) => `修复 ${a} ${b}`,
  ];
  for (let i = 0; i < perKind; i++) {
    if (i % 2 === 0 && dev.length > 0) out.push({ kind: 'cjk', text: dev[(i / 2) % dev.length]!.query });
    else out.push({ kind: 'cjk', text: pick(zhTemplates, r)(zipf(ZH_WORDS, r), zipf(ZH_WORDS, r)) });
  }
  return out;
}
