/**
 * `pnpm bench:postgres [--messages N] [--projects P] [--queries Q] [--vectors LIST] [--dims D] [--database URL]`
 * compares the SQLite path with the PostgreSQL path over the SAME generated data, both through the
 * storage ports (@recall/storage-ports): bulk ingest through MessageStore.append (one call per
 * message and one call per session batch), keyword discover p50/p95 through KeywordIndex.search in
 * the largest project (10 % of the messages) for common English, rare English and Chinese queries,
 * and exact vector top-10 in one project: pgvector's exact scan through ChunkStore.search against
 * @recall/semantic's scanTopK over the same vectors (the kernel its search runs on the cached
 * allowed set) and the PostgreSQL path through that cache (semantic port-search.ts: cold build,
 * warm p50/p95, client CPU per call), plus an HNSW index (store-postgres/internal) with its build time, recall@10 against
 * the exact scan and `hnsw.iterative_scan`. Ratios are printed from the same run. Without
 * --database it starts a throwaway PostgreSQL 15 + pgvector cluster (pg-cluster.ts). A command, not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { MatrixCache } from '@recall/semantic';
import { cachedChunkSearch, normalizeL2, scanTopK, type CachedSearchCounters, type VectorMatrix } from '@recall/semantic/internal';
import type { MessageInput, Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { openPostgres, postgresStorage, scopedRead, type RecallPostgres } from '@recall/store-postgres';
import { AFTER_WRITE_HEADER, afterWrites } from './pg-after-write.js';
import { benchPostgres } from './pg-cluster.js';
import { scanVariants } from './pg-scan-variants.js';
import { hnswRows as hnswRows_ } from './pg-hnsw-bench.js';
import { loadVariants } from './pg-load-variants.js';
import { benchTool } from './postgres-tool.js';
import { seedMode, writeReadyChunks } from './pg-vector-seed.js';
import { argNumber, argValue, exitOnHelp, machine, ms, rng, stats } from './util.js';

exitOnHelp(`Usage: pnpm bench:postgres [options]   (node tooling/bench/dist/postgres-bench.js [options])
SQLite path vs PostgreSQL path over the same generated data, through the storage ports:
ingest msg/s (per-message and batched MessageStore.append), keyword discover p50/p95 in the
largest project (common, rare, Chinese queries), exact vector top-10 (pgvector vs scanTopK, and the
PostgreSQL path through @recall/semantic's MatrixCache with its cold build time) and
an HNSW index with its recall@10 and iterative scans. Same-run ratios; progress on stderr.
  --messages N      keyword corpus size (default 200k; 1m accepted)
  --projects P      projects (default 100; the largest holds 10 %)
  --session-size N  messages per session = per batched append (default 500)
  --single N        messages appended one call each, per backend (default 2000)
  --queries Q       queries per kind (default 50)
  --vectors LIST    vector counts in one project, cumulative (default 100k; e.g. 100k,1m; 0 skips)
  --seed bulk|ports how the vectors' chunk rows are written (the messages are always appended through
                    MessageStore.append, sessions of 2000): bulk (default) = one INSERT of ready rows
                    per session (store-postgres/internal insertReadyChunks: the rows plan + claim +
                    complete leave; chunk rows ~4× faster, 100k seeded in ~20 s, 1M in ~9 min);
                    ports = ChunkStore.plan, ClaimQueue.claim and complete per session, as the
                    index worker writes them (~50–60 s per 100k on an idle-ish 2-core machine)
  --dims D          vector dimensions (default 384)
  --vector-queries Q  queries per vector size (default 20)
  --no-hnsw         skip the HNSW index
  --writes N        appends (one message with a ready vector each) after the warm cache searches,
                    each followed by the next search through the delta cache and through a
                    \`delta: false\` cache (a miss + background rebuild), same run (default 5; 0 skips;
                    pg-after-write.ts)
  --scan-variants   also time other exact top-10 scans over the same rows, each checked against
                    ChunkStore.search: serial vs 2 parallel workers, a halfvec copy with a certified
                    float re-rank (pg-scan-variants.ts)
  --load-variants N also time N alternating pairs of allowed-set loads (a cache rebuild's read): the
                    binary COPY load against the previous cursor load, rows compared byte for byte
                    (pg-load-variants.ts)
  --tool            also time session_search itself (keyword discover + browse) on both backends,
                    with the PostgreSQL queries per call (postgres-tool.ts)
  --tool-base DIR   with --tool: a built checkout of another commit whose tool and adapters run
                    interleaved with this build's over the same data (before/after, results compared)
  --tool-queries N  discover queries of --tool (default 50)
  --tool-rounds N   rounds over those queries (default 2)
  --database URL    an empty PostgreSQL database with pgvector (or RECALL_BENCH_DATABASE_URL);
                    default: a throwaway cluster in a temp folder
  -h, --help        print this and exit`);

const N = argNumber('messages', 200_000);
const P = argNumber('projects', 100);
const SESSION = argNumber('session-size', 500);
const SINGLE = argNumber('single', 2000);
const Q = argNumber('queries', 50);
const VECTORS = (argValue('vectors') || '100k').split(',').map((v) => argNumberOf(v));
const DIMS = argNumber('dims', 384);
const VQ = argNumber('vector-queries', 20);
const HNSW = argValue('no-hnsw') === undefined;
const SEED = seedMode(argValue('seed'));
const WRITES = argNumber('writes', 5);
const SCAN_VARIANTS = argValue('scan-variants') !== undefined;
const LOAD_VARIANTS = argValue('load-variants') === undefined ? 0 : argNumber('load-variants', 4);
const TOOL = argValue('tool') !== undefined;
const TOOL_BASE = argValue('tool-base') || undefined;
const TOOL_QUERIES = argNumber('tool-queries', 50);
const TOOL_ROUNDS = argNumber('tool-rounds', 2);

function argNumberOf(text: string): number {
  const m = /^([\d_.]+)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`--vectors expects counts like 100k,1m, got ${text}`);
  return Math.round(Number(m[1]!.replace(/_/g, '')) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}
const progress = (line: string): void => void process.stderr.write(`[bench:postgres] ${line}\n`);

const EN = ('the to of and in is it for that we with this should need use run fix add test build change update check error file code data value function return call server client request response query index table cache config option version release deploy branch merge commit review issue bug problem default path input output message session project user model retry timeout connection database migration schema search result performance latency memory thread process queue worker job task log').split(' ');
const RARE = ('kubernetes terraform prometheus grafana haproxy clickhouse rabbitmq zookeeper flamegraph backpressure idempotency tombstone compaction checkpoint deadlock livelock quicksort bisect webhook cronjob serializer tokenizer quantization').split(' ');
const ZH = ('数据库 迁移 索引 查询 性能 问题 修复 测试 部署 服务器 配置 文件 超时 重试 日志 错误 用户 项目 会话 消息 搜索 缓存 内存 线程 进程 网络 连接 接口 版本 发布 代码 函数 参数 返回 结果 页面 组件 构建 依赖 升级 回滚 备份 权限 登录 队列 任务 调度 监控 告警 延迟 压缩 分片 事务 今天 明天 周末 旅游 电影 音乐 朋友 吃饭 蒸鱼 鲈鱼 做菜 公园 散步 咖啡 读书').split(' ');

const r = rng(19);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
function sentence(): string {
  if (r() < 0.3) return Array.from({ length: 4 + Math.floor(r() * 10) }, () => pick(ZH)).join('') + '。';
  const words = Array.from({ length: 8 + Math.floor(r() * 14) }, () => (r() < 0.02 ? pick(RARE) : pick(EN)));
  return words.join(' ') + '.';
}

/** Project sizes: the largest 10 %, the rest spread evenly. */
const largest = Math.floor(N * 0.1);
const sizes = [largest, ...Array.from({ length: P - 1 }, (_, i) => Math.floor((N - largest) / (P - 1)) + (i < (N - largest) % (P - 1) ? 1 : 0))];
progress(`generating ${N.toLocaleString('en')} messages in ${P} projects (largest ${largest.toLocaleString('en')})`);
const t0gen = Date.now();
const corpus: Array<{ project: number; batch: MessageInput[] }> = [];
const base = Date.UTC(2026, 0, 1);
let written = 0;
sizes.forEach((size, project) => {
  for (let left = size; left > 0; left -= SESSION) {
    const batch: MessageInput[] = [];
    for (let i = 0; i < Math.min(SESSION, left); i++) batch.push({ role: i % 2 ? 'assistant' : 'user', content: sentence(), createdAt: base + written++ * 1000 });
    corpus.push({ project, batch });
  }
});
progress(`generated in ${((Date.now() - t0gen) / 1000).toFixed(1)} s`);

interface Side {
  name: string;
  storage: Storage;
  projectIds: string[];
  batchRate: number;
  singleRate: number;
  /** Batched ingest: messages per CPU-second of this process plus the database server (null: not measurable). */
  batchPerCpu: number | null;
}

/** This process's CPU seconds so far. */
const ownCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function ingest(name: string, storage: Storage, serverCpu: () => number | null = () => 0): Promise<Side> {
  const projectIds: string[] = [];
  for (let p = 0; p < P; p++) projectIds.push((await storage.projects.create({ name: `bench ${p}` })).id);
  const cpu0 = ownCpu();
  const server0 = serverCpu();
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  let done = 0;
  let lastReport = Date.now();
  for (const { project, batch } of corpus) {
    const session = await storage.sessions.create({ projectId: projectIds[project]!, title: `session ${done}` });
    await storage.messages.append(session.id, batch);
    done += batch.length;
    if (Date.now() - lastReport > 5000) {
      lastReport = Date.now();
      progress(`${name}: ${done.toLocaleString('en')} / ${N.toLocaleString('en')} messages`);
    }
  }
  const batchRate = N / ((performance.now() - t0) / 1000);
  const server1 = serverCpu();
  const cpu = ownCpu() - cpu0 + (server0 === null || server1 === null ? NaN : server1 - server0);
  const batchPerCpu = Number.isFinite(cpu) ? N / cpu : null;
  ingestLoad.set(name, [load0, loadavg()[0]!]);
  const single = await storage.sessions.create({ projectId: projectIds[P - 1]!, title: 'single appends' });
  const t1 = performance.now();
  for (let i = 0; i < SINGLE; i++) await storage.messages.append(single.id, [{ role: 'user', content: sentence() }]);
  const singleRate = SINGLE / ((performance.now() - t1) / 1000);
  progress(`${name}: ${Math.round(batchRate).toLocaleString('en')} msg/s batched, ${Math.round(singleRate).toLocaleString('en')} msg/s one per call`);
  return { name, storage, projectIds, batchRate, singleRate, batchPerCpu };
}

const queryKinds: Record<string, string[]> = {
  common: Array.from({ length: Q }, () => `${pick(EN.slice(20))} ${pick(EN.slice(20))}`),
  rare: Array.from({ length: Q }, () => pick(RARE)),
  chinese: Array.from({ length: Q }, () => `${pick(ZH)}${pick(ZH)}`),
};

async function keyword(side: Side): Promise<Record<string, { p50: number; p95: number; hits: number }>> {
  const out: Record<string, { p50: number; p95: number; hits: number }> = {};
  const scope = { kind: 'project' as const, projectId: side.projectIds[0]! };
  for (const q of queryKinds.common!.slice(0, 5)) await side.storage.keyword.search(scope, q); // warm-up
  for (const [kind, queries] of Object.entries(queryKinds)) {
    const samples: number[] = [];
    let hits = 0;
    for (const q of queries) {
      const t = performance.now();
      const answer = await side.storage.keyword.search(scope, q, { limit: 20 });
      samples.push(performance.now() - t);
      hits += answer.hits.length;
    }
    const s = stats(samples);
    out[kind] = { p50: s.p50, p95: s.p95, hits: hits / queries.length };
  }
  return out;
}

/** Clustered unit vectors (centroid + noise), like real embeddings, seeded. */
function vectors(count: number, offset: number): Float32Array[] {
  const vr = rng(1000 + offset);
  const centroids = Array.from({ length: 64 }, (_, i) => {
    const cr = rng(7 + i);
    return normalizeL2(Float32Array.from({ length: DIMS }, () => cr() - 0.5));
  });
  return Array.from({ length: count }, () => {
    const c = centroids[Math.floor(vr() * centroids.length)]!;
    const v = Float32Array.from({ length: DIMS }, (_, i) => c[i]! + (vr() - 0.5) * 0.2);
    return normalizeL2(v);
  });
}

/** The single exact statement ChunkStore.search ran before migration 0011 (same RLS read, same order). */
async function plainExactTopK(db: RecallPostgres, fingerprintId: number, projectId: string, q: Float32Array, k: number): Promise<number[]> {
  return scopedRead(db.pool, { projectId }, async (tx) => {
    const rows = (
      await tx.query(
        `select c.message_id, c.embedding <#> $2::vector as distance from semantic_chunks c join sessions s on s.id = c.session_id
          where c.fingerprint_id = $1 and c.status = 'ready' and c.embedding is not null and not s.hidden and c.visibility in ('live', 'compacted')
            and c.project_id = $3 and s.project_id = c.project_id order by distance, c.message_id, c.id limit ${k * 2}`,
        [fingerprintId, `[${Array.from(q).join(',')}]`, projectId],
      )
    ).rows;
    return [...new Set(rows.map((r) => Number(r.message_id)))].slice(0, k);
  });
}

/** Load average (1 min) at the start and end of each side's batched ingest. */
const ingestLoad = new Map<string, [number, number]>();

async function main(): Promise<void> {
  const given = argValue('database') || process.env.RECALL_BENCH_DATABASE_URL;
  const server = await benchPostgres(given);
  const dir = mkdtempSync(join(tmpdir(), 'recall-bench-pgsq-'));
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    say(`bench:postgres — ${new Date().toISOString()} — ${machine()}`);
    say(`PostgreSQL: ${server.label}; SQLite: openDatabase() in ${dir}`);
    say(`corpus: ${N.toLocaleString('en')} messages, ${P} projects (largest ${largest.toLocaleString('en')}), sessions of ${SESSION}`);
    const sqlite = await ingest('sqlite', sqliteStorage(openDatabase(join(dir, 'recall.db')), { ownsDatabase: true }));
    const pgdb = await openPostgres(server.url, { maxConnections: 4 });
    const pg = await ingest('postgres', postgresStorage(pgdb, server.url), () => server.cpuSeconds());
    say('');
    say('| ingest through MessageStore.append | SQLite | PostgreSQL | PG / SQLite |');
    say('|---|---|---|---|');
    say(`| batched (one call per session of ${SESSION}) | ${Math.round(sqlite.batchRate).toLocaleString('en')} msg/s | ${Math.round(pg.batchRate).toLocaleString('en')} msg/s | ${(pg.batchRate / sqlite.batchRate).toFixed(2)} |`);
    const perCpu = (side: Side) => (side.batchPerCpu === null ? 'n/a' : `${Math.round(side.batchPerCpu).toLocaleString('en')} msg/CPU-s`);
    say(`| batched, per CPU-second (${sqlite.name}: this process; postgres: this process + the server) | ${perCpu(sqlite)} | ${perCpu(pg)} | ${sqlite.batchPerCpu && pg.batchPerCpu ? (pg.batchPerCpu / sqlite.batchPerCpu).toFixed(2) : 'n/a'} |`);
    say(`| load average (1 min) at start → end of the batched ingest | ${ingestLoad.get('sqlite')!.map((l) => l.toFixed(1)).join(' → ')} | ${ingestLoad.get('postgres')!.map((l) => l.toFixed(1)).join(' → ')} | |`);
    say(`| one call per message (${SINGLE}) | ${Math.round(sqlite.singleRate).toLocaleString('en')} msg/s | ${Math.round(pg.singleRate).toLocaleString('en')} msg/s | ${(pg.singleRate / sqlite.singleRate).toFixed(2)} |`);
    progress('keyword queries');
    await pgdb.pool.query('vacuum analyze');
    const ks = await keyword(sqlite);
    const kp = await keyword(pg);
    say('');
    say(`| keyword discover, largest project (${largest.toLocaleString('en')} msgs), ${Q} queries/kind | SQLite p50 / p95 | PostgreSQL p50 / p95 | p95 ratio PG / SQLite | mean hits S / PG |`);
    say('|---|---|---|---|---|');
    for (const kind of Object.keys(queryKinds)) {
      const a = ks[kind]!;
      const b = kp[kind]!;
      say(`| ${kind} | ${ms(a.p50)} / ${ms(a.p95)} | ${ms(b.p50)} / ${ms(b.p95)} | ${(b.p95 / a.p95).toFixed(2)} | ${a.hits.toFixed(1)} / ${b.hits.toFixed(1)} |`);
    }
    if (TOOL) {
      // The caller: a new session of the largest project on both backends (the same rows otherwise).
      const callers = {
        sqlite: (await sqlite.storage.sessions.create({ id: 's_bench_caller', projectId: sqlite.projectIds[0]! })).id,
        postgres: (await pg.storage.sessions.create({ id: 's_bench_caller', projectId: pg.projectIds[0]! })).id,
      };
      const kinds = Object.values(queryKinds);
      const queries = Array.from({ length: TOOL_QUERIES }, (_, i) => kinds[i % kinds.length]![Math.floor(i / kinds.length) % Q]!);
      progress(`session_search on both backends${TOOL_BASE ? `, interleaved with the build in ${TOOL_BASE}` : ''}`);
      await benchTool({ sqlitePath: join(dir, 'recall.db'), url: server.url, callers, queries, rounds: TOOL_ROUNDS, baseDir: TOOL_BASE, say, progress });
    }
    await sqlite.storage.close();

    const targets = VECTORS.filter((v) => v > 0).sort((a, b) => a - b);
    if (targets.length > 0) {
      say('');
      say(`| exact vector top-10, one project, ${DIMS} dims, ${VQ} queries | scanTopK (SQLite path, warm matrix) p50 / p95 | pgvector exact via ChunkStore.search p50 / p95 | p50 ratio PG / scan | same top-10 ids as the scan (mean overlap) |`);
      say('|---|---|---|---|---|');
      const exactRows: string[] = [];
      const gateRows: string[] = [];
      const cacheRows: string[] = [];
      const writeRows: string[] = [];
      const chunks = pg.storage.semantic!.chunks;
      const fp = await chunks.ensureFingerprint({ provider: 'bench', endpoint: 'http://127.0.0.1/bench', model: 'bench', dims: DIMS, normalization: 'l2', chunkerVersion: 1 });
      const project = (await pg.storage.projects.create({ name: 'vectors' })).id;
      await chunks.setConsent(project, 'http://127.0.0.1/bench', true);
      const all: Float32Array[] = [];
      const allIds: number[] = []; // message id of each row of `all`
      const hnswRows: string[] = [];
      const variantRows: string[] = [];
      const loadRows: string[] = [];
      const seedRows: string[] = [];
      const queries = vectors(VQ, 999_999);
      for (const target of targets) {
        progress(`seeding vectors up to ${target.toLocaleString('en')} (--seed ${SEED})`);
        const tSeed = performance.now();
        const seedFrom = all.length;
        let chunkSeconds = 0;
        while (all.length < target) {
          const count = Math.min(2000, target - all.length);
          const fresh = vectors(count, all.length);
          const session = await pg.storage.sessions.create({ projectId: project });
          const contents = fresh.map((_, i) => `vector message ${all.length + i}`);
          const appended = await pg.storage.messages.append(session.id, contents.map((content) => ({ role: 'assistant' as const, content })));
          const tRows = performance.now();
          await writeReadyChunks(SEED, { storage: pg.storage, pool: pgdb.pool, fingerprintId: fp, endpoint: 'http://127.0.0.1/bench', projectId: project }, appended.messages, fresh);
          chunkSeconds += (performance.now() - tRows) / 1000;
          all.push(...fresh);
          allIds.push(...appended.messages.map((m) => m.id));
          // Every 20k crossed (after --writes the counts are no longer multiples of the batch).
          if (Math.floor(all.length / 20_000) > Math.floor((all.length - count) / 20_000)) progress(`  ${all.length.toLocaleString('en')} vectors (${((performance.now() - tSeed) / 1000).toFixed(0)} s)`);
        }
        const seedSeconds = (performance.now() - tSeed) / 1000;
        const tVacuum = performance.now();
        await pgdb.pool.query('vacuum analyze semantic_chunks');
        seedRows.push(
          `| ${seedFrom.toLocaleString('en')} → ${target.toLocaleString('en')} | ${SEED} | ${seedSeconds.toFixed(1)} s (${Math.round((target - seedFrom) / seedSeconds).toLocaleString('en')} vectors/s) | ${chunkSeconds.toFixed(1)} s | ${((performance.now() - tVacuum) / 1000).toFixed(1)} s |`,
        );
        progress(`seeded in ${seedSeconds.toFixed(1)} s (chunk rows ${chunkSeconds.toFixed(1)} s)`);
        const matrix: VectorMatrix = { dims: DIMS, rows: all.length, data: new Float32Array(all.length * DIMS) };
        all.forEach((v, i) => matrix.data.set(v, i * DIMS));
        const scan: number[] = [];
        const scanIds: number[][] = [];
        for (const q of queries) {
          const t = performance.now();
          const top = scanTopK(matrix, q, { k: 10 });
          scan.push(performance.now() - t);
          scanIds.push(top.map((row) => allIds[row.row]!));
        }
        const exact: number[] = [];
        const truth: number[][] = [];
        const plain: number[] = [];
        let plainSame = 0;
        const scope = { kind: 'project' as const, projectId: project, currentSessionId: null };
        const loadExact = loadavg()[0]!;
        // Alternating per query (which runs first flips): ChunkStore.search (two certified stages,
        // migration 0011) and the single exact statement it replaced, inside the same RLS read.
        for (const [i, q] of queries.entries()) {
          const viaSearch = async () => {
            const t = performance.now();
            truth.push((await chunks.search(scope, fp, q, { limit: 10 })).map((h) => h.messageId));
            exact.push(performance.now() - t);
          };
          let plainIds: number[] = [];
          const viaPlain = async () => {
            const t = performance.now();
            plainIds = await plainExactTopK(pgdb, fp, project, q, 10);
            plain.push(performance.now() - t);
          };
          if (i % 2 === 0) {
            await viaSearch();
            await viaPlain();
          } else {
            await viaPlain();
            await viaSearch();
          }
          if (plainIds.length === truth[i]!.length && plainIds.every((id, j) => id === truth[i]![j])) plainSame++;
        }
        const loadExactEnd = loadavg()[0]!;
        // The PostgreSQL path through @recall/semantic's MatrixCache (port-search.ts): cold build
        // (generation + allowed-set load + int8 quantisation + the first search), then warm searches
        // (one scoped transaction each: generation read, in-memory int8 pass, rescore read of the
        // candidates), alternating with ChunkStore.search per query; client CPU per warm call.
        {
          const cache = new MatrixCache();
          const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
          const loadStart = loadavg()[0]!;
          // Cold: a set over the cache's inline threshold is answered by the SQL scan at once and
          // loaded in the background (MatrixCache.getAsync); `cold` = first answer, `rebuild` = until
          // the entry is kept (the same for an inline load: the first answer then waits for it).
          const tCold = performance.now();
          await cachedChunkSearch(chunks, cache, scope, fp, queries[0]!, { limit: 10 }, counters);
          const cold = performance.now() - tCold;
          await cache.settled();
          const rebuild = performance.now() - tCold;
          const warm: number[] = [];
          const sql: number[] = [];
          let same = 0;
          let cpu = 0;
          for (const [i, q] of queries.entries()) {
            let ids: number[] = [];
            const viaCache = async () => {
              const c0 = process.cpuUsage();
              const t = performance.now();
              ids = (await cachedChunkSearch(chunks, cache, scope, fp, q, { limit: 10 }, counters)).map((h) => h.messageId);
              warm.push(performance.now() - t);
              const c = process.cpuUsage(c0);
              cpu += (c.user + c.system) / 1000;
            };
            const viaSql = async () => {
              const t = performance.now();
              await chunks.search(scope, fp, q, { limit: 10 });
              sql.push(performance.now() - t);
            };
            if (i % 2 === 0) {
              await viaCache();
              await viaSql();
            } else {
              await viaSql();
              await viaCache();
            }
            if (ids.length === truth[i]!.length && ids.every((id, j) => id === truth[i]![j])) same++;
          }
          const w = stats(warm);
          const s2 = stats(sql);
          const sc = stats(scan);
          const mib = cache.snapshot().bytes / 1024 ** 2;
          cacheRows.push(
            `| ${target.toLocaleString('en')} | ${ms(sc.p50)} / ${ms(sc.p95)} | ${ms(w.p50)} / ${ms(w.p95)} (${(w.p50 / sc.p50).toFixed(1)}× scan) | ${ms(s2.p50)} / ${ms(s2.p95)} (${(s2.p50 / sc.p50).toFixed(1)}× scan) | ${(cpu / queries.length).toFixed(2)} ms | first answer ${ms(cold)}, entry kept after ${(rebuild / 1000).toFixed(2)} s, ${mib.toFixed(0)} MiB | ${same} / ${queries.length} | ${counters.cached} / ${counters.adapter} / ${counters.stale} | ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} |`,
          );
          // Right after a write: real appends, the delta cache against `delta: false` (pg-after-write.ts).
          if (WRITES > 0) {
            progress(`${WRITES} appends, the next search through the delta and through a rebuild`);
            writeRows.push(await afterWrites({ storage: pg.storage, fingerprintId: fp, endpoint: 'http://127.0.0.1/bench', projectId: project, scope, cache, queries, fresh: vectors(WRITES, 5_000_000 + target), all, allIds }, target));
          }
        }
        const a = stats(scan);
        const b = stats(exact);
        const c = stats(plain);
        exactRows.push(`| ${target.toLocaleString('en')} | ${ms(a.p50)} / ${ms(a.p95)} | ${ms(c.p50)} / ${ms(c.p95)} (${(c.p50 / a.p50).toFixed(1)}×) | ${ms(b.p50)} / ${ms(b.p95)} (${(b.p50 / a.p50).toFixed(1)}×) | ${(c.p50 / b.p50).toFixed(2)} | ${plainSame} / ${queries.length} | ${loadExact.toFixed(1)} → ${loadExactEnd.toFixed(1)} |`);
        // Exactness: the same top-10 message ids as the in-memory scan (ties within float error aside).
        const same = truth.filter((ids, i) => ids.length === scanIds[i]!.length && ids.every((id, j) => id === scanIds[i]![j])).length;
        const overlap = truth.reduce((sum, ids, i) => sum + ids.filter((id) => scanIds[i]!.includes(id)).length / Math.max(1, scanIds[i]!.length), 0) / truth.length;
        say(`| ${target.toLocaleString('en')} vectors | ${ms(a.p50)} / ${ms(a.p95)} | ${ms(b.p50)} / ${ms(b.p95)} | ${(b.p50 / a.p50).toFixed(1)} | ${same} / ${truth.length} (${overlap.toFixed(3)}) |`);
        if (SCAN_VARIANTS) {
          progress(`scan variants over ${target.toLocaleString('en')} vectors`);
          for (const line of await scanVariants(pgdb, { fingerprintId: fp, projectId: project, dims: DIMS, k: 10, queries, truth, scanP50: a.p50 })) variantRows.push(line.replace(/^\| /, `| ${target.toLocaleString('en')} | `));
        }
        if (LOAD_VARIANTS > 0) {
          progress(`allowed-set load variants over ${target.toLocaleString('en')} vectors`);
          loadRows.push(...(await loadVariants(pgdb, { fingerprintId: fp, projectId: project, dims: DIMS, rounds: LOAD_VARIANTS })));
        }
        if (HNSW) {
          const rows = await hnswRows_(pgdb.pool, chunks, { fingerprintId: fp, projectId: project, dims: DIMS, target, queries, truth, scanP50: a.p50, progress });
          hnswRows.push(...rows.settings);
          gateRows.push(rows.gate);
        }
      }
      say('');
      say('| vectors seeded (sessions of 2000, one message and one chunk each) | --seed | seed wall (appends + vector generation + chunk rows) | of which chunk rows | vacuum analyze |');
      say('|---|---|---|---|---|');
      for (const line of seedRows) say(line);
      say('');
      say(`| same run, alternating per query: vectors | scanTopK p50 / p95 | single exact statement (before 0011) p50 / p95 (× scan) | ChunkStore.search, two certified stages p50 / p95 (× scan) | before / after (p50) | same top-10 ids | load average (1 min) start → end |`);
      say('|---|---|---|---|---|---|---|');
      for (const line of exactRows) say(line);
      say('');
      say('| matrix cache, same run, alternating per query: vectors | scanTopK (SQLite path) p50 / p95 | PostgreSQL through MatrixCache p50 / p95 (× scan) | ChunkStore.search p50 / p95 (× scan) | client CPU per cached call | cold: first answer, entry kept after, bytes held | same top-10 ids as ChunkStore.search | cached / adapter / stale | load average (1 min) start → end |');
      say('|---|---|---|---|---|---|---|---|---|');
      for (const line of cacheRows) say(line);
      if (writeRows.length > 0) {
        say('');
        say(AFTER_WRITE_HEADER);
        for (const line of writeRows) say(line);
      }
      if (variantRows.length > 0) {
        say('');
        say(`| exact top-10 variants: vectors | variant | p50 / p95 | p50 ratio to scanTopK | top-10 equal to ChunkStore.search's | note |`);
        say('|---|---|---|---|---|---|');
        for (const line of variantRows) say(line);
      }
      if (loadRows.length > 0) {
        say('');
        say(`| allowed-set load (a cache rebuild's read), ${LOAD_VARIANTS} alternating pairs: rows | variant | wall p50 / min | p50 ratio to the cursor load | client CPU p50 | load + int8 quantisation (a rebuild's work) p50 | rows equal byte for byte |`);
        say('|---|---|---|---|---|---|---|');
        for (const line of loadRows) say(line);
      }
      if (hnswRows.length > 0) {
        say('');
        say(`| HNSW vectors | build | plan uses index | ef_search | iterative_scan | max_scan_tuples | p50 / p95 | recall@10 vs exact (${VQ} queries) |`);
        say('|---|---|---|---|---|---|---|---|');
        for (const row of hnswRows) say(row);
      }
      if (gateRows.length > 0) {
        say('');
        say('| HNSW gate: vectors | measureHnswRecall, recall@10 vs exact on 50 sampled queries, per setting tried | recorded | ChunkStore.search uses | ChunkStore.search p50 / p95 with the gate as recorded | its recall@10 on the bench queries |');
        say('|---|---|---|---|---|---|');
        for (const row of gateRows) say(row);
      }
    }
    await pg.storage.close();
    await pgdb.close();
    say('');
    say('Goals: keyword p95 ≤ 2× SQLite; batched ingest ≥ 10k msg/s; exact scan within 3× of the SQLite scan.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:postgres failed: ${(error as Error).message}\n`);
  process.exit(1);
});
