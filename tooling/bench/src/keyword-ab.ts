/**
 * `pnpm bench:keyword --against ROOT --db PATH --against-db PATH2 [--rounds N] [--writes none|append|move] [--write-every N]`:
 * the same keyword questions through THIS build's keywordSearch and through another build's (ROOT:
 * another checkout of the repository, built), alternated question by question in ONE process, each
 * build on a temp copy of its own database (PATH and PATH2, as `bench:keyword --db` of each build
 * wrote them: the same seed writes the same messages). CPU of the process per call (mean / p50 /
 * p95) and the ratio to the other build: the figure that stays comparable on a loaded machine, where
 * separate runs of the same build differ by 15–40 %. `--writes append` appends one message to the
 * largest project before each search, `move` moves a small session in or out of it (every
 * `--write-every` searches), as a live gateway does; with writes the table adds the CPU of the write
 * alone and of the write with the search after it (a build may do part of a write's work at the
 * next search, so the search alone can flatter or wrong it). Questions: common English words, rare
 * identifiers of the largest project and Chinese (cjk-dev and frequent words), as bench:keyword
 * builds them, read from the database itself.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import * as store from '@recall/store';
import { isStopword } from '@recall/store/internal';
import { keywordQuestions, type QueryCase } from './keyword-corpus.js';
import { argNumber, argValue, machine, rng, stats } from './util.js';

type Kind = 'common' | 'rare' | 'cjk';
interface StoreApi {
  keywordSearch(db: unknown, scope: { kind: 'project'; projectId: string }, query: string, options: { limit: number }): unknown;
  appendMessages(db: unknown, sessionId: string, messages: { role: 'user'; content: string }[]): unknown;
  setSessionProject(db: unknown, sessionId: string, projectId: string | null): unknown;
}
interface Build {
  name: string;
  api: StoreApi;
  db: { raw: RecallDatabase['raw']; close(): void };
  cpu: Record<Kind, number[]>;
  /** CPU of each write (append or move) and of each write + the search after it. */
  writeCpu: number[];
  stepCpu: number[];
  appendTo: string;
  mover: string;
  moverIn: boolean;
}

function copyOf(path: string, dir: string, name: string): string {
  const out = join(dir, `${name}.db`);
  copyFileSync(path, out);
  return out;
}

/** The questions, from the database: the most frequent English words, rare identifiers of the largest project, Chinese. */
function questions(db: RecallDatabase['raw'], largest: string, perKind: number): QueryCase[] {
  const r = rng(20261202);
  const df = new Map<string, number>();
  for (const c of db.prepare('select content from messages where id % 10 = 0').pluck().iterate() as Iterable<string>) {
    for (const w of new Set(c.toLowerCase().match(/[a-z]{4,}/g) ?? [])) if (!isStopword(w)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const common = [...df.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([w]) => w);
  const ids = new Map<string, number>();
  const own = db.prepare('select m.content from messages m join sessions s on s.id = m.session_id where s.project_id = ? and m.id % 7 = 0').pluck();
  for (const c of own.iterate(largest) as Iterable<string>) for (const w of c.match(/\b[A-Za-z]+_[A-Za-z_.]+\b/g) ?? []) ids.set(w, (ids.get(w) ?? 0) + 1);
  const rare = [...ids.entries()].filter(([, n]) => n <= 3).map(([w]) => w);
  return keywordQuestions(r, perKind, common, rare);
}

/** Runs the A/B (see the module header) and prints its table. */
export async function keywordAb(): Promise<void> {
  const against = argValue('against');
  const dbPath = argValue('db');
  const otherPath = argValue('against-db');
  if (!against || !dbPath || !otherPath) throw new Error('--against ROOT needs --db PATH (this build\'s database) and --against-db PATH (the other build\'s)');
  const rounds = Math.max(1, argNumber('rounds', 3));
  const perKind = Math.max(1, argNumber('queries', 50));
  const writes = argValue('writes') ?? 'none';
  if (!['none', 'append', 'move'].includes(writes)) throw new Error('--writes is none, append or move');
  const every = Math.max(1, argNumber('write-every', 1));
  const dir = mkdtempSync(join(tmpdir(), 'recall-keyword-ab-'));
  try {
    const otherSchema = (await import(join(against, 'packages', 'schema', 'dist', 'index.js'))) as { openDatabase(path: string): Build['db'] };
    const otherStore = (await import(join(against, 'packages', 'store', 'dist', 'index.js'))) as StoreApi;
    const empty = (): Record<Kind, number[]> => ({ common: [], rare: [], cjk: [] });
    const builds: Build[] = [
      { name: 'this build', api: store as unknown as StoreApi, db: openDatabase(copyOf(dbPath, dir, 'this')), cpu: empty(), writeCpu: [], stepCpu: [], appendTo: '', mover: '', moverIn: false },
      { name: `--against ${against}`, api: otherStore, db: otherSchema.openDatabase(copyOf(otherPath, dir, 'other')), cpu: empty(), writeCpu: [], stepCpu: [], appendTo: '', mover: '', moverIn: false },
    ];
    const raw = builds[0]!.db.raw;
    const bySize = raw.prepare('select s.project_id as p from messages m join sessions s on s.id = m.session_id where s.project_id is not null group by 1 order by count(*) desc').pluck().all() as string[];
    const largest = bySize[0]!;
    const smallest = bySize[bySize.length - 1]!;
    for (const b of builds) {
      b.appendTo = b.db.raw.prepare('select id from sessions where project_id = ? order by id limit 1').pluck().get(largest) as string;
      b.mover = b.db.raw.prepare('select s.id from sessions s where s.project_id = ? order by (select count(*) from messages m where m.session_id = s.id), s.id limit 1').pluck().get(smallest) as string;
    }
    const qs = questions(raw, largest, perKind);
    const scope = { kind: 'project' as const, projectId: largest };
    console.log(`# keyword A/B — ${new Date().toISOString()}\nmachine: ${machine()}\n${qs.length} questions × ${rounds} rounds in ${largest}, writes: ${writes}${writes === 'none' ? '' : ` (every ${every})`}`);
    for (const b of builds) for (const q of qs.slice(0, 10)) b.api.keywordSearch(b.db, scope, q.text, { limit: 20 });
    let k = 0;
    for (let round = 0; round < rounds; round++) {
      for (let qi = 0; qi < qs.length; qi++, k++) {
        const q = qs[qi]!;
        const order = (qi + round) % 2 === 0 ? builds : [...builds].reverse();
        for (const b of order) {
          const w0 = process.cpuUsage();
          if (k % every === 0 && writes === 'append') b.api.appendMessages(b.db, b.appendTo, [{ role: 'user', content: `we looked at the retry budget again, 我们又看了配置 ${k}` }]);
          if (k % every === 0 && writes === 'move') {
            b.api.setSessionProject(b.db, b.mover, b.moverIn ? smallest : largest);
            b.moverIn = !b.moverIn;
          }
          const w = process.cpuUsage(w0);
          const c0 = process.cpuUsage();
          b.api.keywordSearch(b.db, scope, q.text, { limit: 20 });
          const c = process.cpuUsage(c0);
          b.cpu[q.kind].push((c.user + c.system) / 1000);
          if (k % every === 0 && writes !== 'none') {
            b.writeCpu.push((w.user + w.system) / 1000);
            b.stepCpu.push((w.user + w.system + c.user + c.system) / 1000);
          }
        }
      }
    }
    console.log('\n| queries | this build: CPU mean / p50 / p95 | other build | ratio (mean / p50 / p95) |\n|---|---|---|---|');
    const all = builds.map((b) => Object.values(b.cpu).flat());
    const line = (name: string, a: number[], o: number[]) => {
      const x = stats(a);
      const y = stats(o);
      console.log(`| ${name} | ${x.mean.toFixed(2)} / ${x.p50.toFixed(2)} / ${x.p95.toFixed(2)} ms | ${y.mean.toFixed(2)} / ${y.p50.toFixed(2)} / ${y.p95.toFixed(2)} ms | ${(x.mean / y.mean).toFixed(3)} / ${(x.p50 / y.p50).toFixed(3)} / ${(x.p95 / y.p95).toFixed(3)} |`);
    };
    for (const kind of ['common', 'rare', 'cjk'] as const) if (builds[0]!.cpu[kind].length > 0) line(kind, builds[0]!.cpu[kind], builds[1]!.cpu[kind]);
    line('all', all[0]!, all[1]!);
    // A build may do part of a write's work at the write and part at the next search (a move's
    // token rewrites, say): the write alone and the write with the search after it, counted whole.
    if (writes !== 'none') {
      line(`the ${writes} alone`, builds[0]!.writeCpu, builds[1]!.writeCpu);
      line(`${writes} + search`, builds[0]!.stepCpu, builds[1]!.stepCpu);
    }
    console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`BENCH-SUMMARY ${JSON.stringify({ bench: 'keyword-ab', writes, rounds, questions: qs.length, cpu_mean_ratio: Number((stats(all[0]!).mean / stats(all[1]!).mean).toFixed(3)), ...(writes === 'none' ? {} : { write_and_search_cpu_mean_ratio: Number((stats(builds[0]!.stepCpu).mean / stats(builds[1]!.stepCpu).mean).toFixed(3)) }) })}`);
    for (const b of builds) b.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
