/**
 * `bench:postgres --tool`: `session_search` itself (createSessionSearchTool({ storage })) on the
 * SQLite file and on the PostgreSQL database of the same run — keyword-mode discover and a browse
 * after each, from a caller session in the largest project — with latency p50/p95 per backend and
 * the PostgreSQL queries (round trips) one call sends. With `--tool-base DIR` (a built checkout of
 * another commit) that commit's tool and adapters run side by side with this build's over the same
 * data, interleaved (the order flips every query and every round), and every pair of results is
 * compared (JSON-equal), so before/after is measured under the same load.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Storage } from '@recall/storage-ports';
import { createSessionSearchTool } from '@recall/search-tool';
import { openSqliteStorage } from '@recall/store';
import { openPostgres, postgresStorage, type RecallPostgres } from '@recall/store-postgres';
import { ms, stats } from './util.js';

type Tool = ReturnType<typeof createSessionSearchTool>;
type Backend = 'sqlite' | 'postgres';

/** One build of the tool with its storages (this checkout's, or a base checkout's). */
interface Build {
  name: string;
  tools: Record<Backend, Tool>;
  close(): Promise<void>;
}

/** Counts the queries sent by every client of a pool (each is one round trip). */
function countQueries(db: RecallPostgres): { n: number } {
  const counter = { n: 0 };
  const marked = Symbol('counted');
  db.pool.on('acquire', (client) => {
    const c = client as unknown as { query: (...a: unknown[]) => unknown; [marked]?: boolean };
    if (c[marked]) return;
    c[marked] = true;
    const query = c.query.bind(client);
    c.query = (...a: unknown[]) => {
      counter.n++;
      return query(...a);
    };
  });
  return counter;
}

interface Modules {
  createSessionSearchTool: typeof createSessionSearchTool;
  openSqliteStorage: typeof openSqliteStorage;
  openPostgres: typeof openPostgres;
  postgresStorage: typeof postgresStorage;
}

async function baseModules(dir: string): Promise<Modules> {
  const load = (pkg: string) => import(pathToFileURL(join(dir, 'packages', pkg, 'dist', 'index.js')).href);
  const [tool, store, pg] = await Promise.all([load('search-tool'), load('store'), load('store-postgres')]);
  return { createSessionSearchTool: tool.createSessionSearchTool, openSqliteStorage: store.openSqliteStorage, openPostgres: pg.openPostgres, postgresStorage: pg.postgresStorage };
}

async function build(name: string, m: Modules, sqlitePath: string, url: string, counters: Map<string, { n: number }>): Promise<Build> {
  const sqlite: Storage = await m.openSqliteStorage({ kind: 'sqlite', path: sqlitePath });
  const pgdb = await m.openPostgres(url, { maxConnections: 4 });
  counters.set(name, countQueries(pgdb));
  const pg: Storage = m.postgresStorage(pgdb, url);
  return {
    name,
    tools: { sqlite: m.createSessionSearchTool({ storage: sqlite }), postgres: m.createSessionSearchTool({ storage: pg }) },
    async close() {
      await sqlite.close();
      await pg.close();
      await pgdb.close();
    },
  };
}

/**
 * Runs the tool measurement. `callers` is the caller session per backend (same project on both);
 * `queries` the discover queries; `say` prints a table line.
 */
export async function benchTool(input: {
  sqlitePath: string;
  url: string;
  callers: Record<Backend, string>;
  queries: readonly string[];
  rounds: number;
  baseDir: string | undefined;
  say: (line: string) => void;
  progress: (line: string) => void;
}): Promise<void> {
  const counters = new Map<string, { n: number }>();
  const here: Modules = { createSessionSearchTool, openSqliteStorage, openPostgres, postgresStorage };
  const builds = [await build('after', here, input.sqlitePath, input.url, counters)];
  if (input.baseDir) builds.unshift(await build('before', await baseModules(input.baseDir), input.sqlitePath, input.url, counters));
  const backends: Backend[] = ['sqlite', 'postgres'];
  type Key = `${string}/${Backend}/${'discover' | 'browse'}`;
  const samples = new Map<Key, number[]>();
  const trips = new Map<Key, number[]>();
  const push = (map: Map<Key, number[]>, key: Key, v: number) => map.set(key, [...(map.get(key) ?? []), v]);
  const firstJson = new Map<string, string>();
  let compared = 0;
  let equal = 0;
  const load: number[] = [loadavg()[0]!];
  // Warm-up: one call of each kind per build and backend.
  for (const b of builds) for (const backend of backends) {
    await b.tools[backend].execute({ query: input.queries[0], search_mode: 'keyword' }, { currentSessionId: input.callers[backend] });
    await b.tools[backend].execute({}, { currentSessionId: input.callers[backend] });
  }
  for (let round = 0; round < input.rounds; round++) {
    input.progress(`tool round ${round + 1} / ${input.rounds} (load ${loadavg()[0]!.toFixed(1)})`);
    for (const [qi, query] of input.queries.entries()) {
      const order = (qi + round) % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) {
        for (const backend of (qi % 2 === 0 ? backends : [...backends].reverse())) {
          const ctx = { currentSessionId: input.callers[backend] };
          for (const [kind, args] of [['discover', { query, search_mode: 'keyword' }], ['browse', {}]] as const) {
            const key: Key = `${b.name}/${backend}/${kind}`;
            const before = counters.get(b.name)!.n;
            const t = performance.now();
            const out = await b.tools[backend].execute(args, ctx);
            push(samples, key, performance.now() - t);
            if (backend === 'postgres') push(trips, key, counters.get(b.name)!.n - before);
            if (out.error) throw new Error(`${key} failed: ${out.error.message}`);
            const id = `${backend}/${kind}/${query}`;
            const json = JSON.stringify(out);
            const seen = firstJson.get(`${b.name}|${id}`);
            if (seen === undefined) firstJson.set(`${b.name}|${id}`, json);
          }
        }
      }
    }
    load.push(loadavg()[0]!);
  }
  if (builds.length === 2) {
    for (const [k, json] of firstJson) {
      if (!k.startsWith('after|')) continue;
      compared++;
      if (firstJson.get(`before|${k.slice('after|'.length)}`) === json) equal++;
    }
  }
  for (const b of builds) await b.close();
  const calls = input.queries.length * input.rounds;
  input.say('');
  input.say(`| session_search (${calls} keyword discover + ${calls} browse per build and backend) | SQLite p50 / p95 | PostgreSQL p50 / p95 | p50 ratio PG / SQLite | PostgreSQL queries per call (mean / max) |`);
  input.say('|---|---|---|---|---|');
  for (const b of builds) {
    for (const kind of ['discover', 'browse'] as const) {
      const s = stats(samples.get(`${b.name}/sqlite/${kind}`)!);
      const p = stats(samples.get(`${b.name}/postgres/${kind}`)!);
      const t = stats(trips.get(`${b.name}/postgres/${kind}`)!);
      input.say(`| ${b.name}: ${kind} | ${ms(s.p50)} / ${ms(s.p95)} | ${ms(p.p50)} / ${ms(p.p95)} | ${(p.p50 / s.p50).toFixed(1)} | ${t.mean.toFixed(1)} / ${t.max} |`);
    }
  }
  if (builds.length === 2) {
    for (const backend of backends) {
      for (const kind of ['discover', 'browse'] as const) {
        const a = stats(samples.get(`before/${backend}/${kind}`)!);
        const z = stats(samples.get(`after/${backend}/${kind}`)!);
        input.say(`| after / before, ${backend} ${kind} | mean ${ms(a.mean)} → ${ms(z.mean)} (${(z.mean / a.mean).toFixed(3)}) | p50 ${ms(a.p50)} → ${ms(z.p50)} (${(z.p50 / a.p50).toFixed(3)}) | | |`);
      }
    }
    input.say(`results identical between the builds (JSON-equal): ${equal} / ${compared}`);
  }
  input.say(`load average (1 min) during the tool runs: ${load.map((l) => l.toFixed(1)).join(' → ')}`);
}
