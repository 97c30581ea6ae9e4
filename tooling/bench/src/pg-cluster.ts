/**
 * The PostgreSQL server a bench runs against: `--database URL` (or RECALL_BENCH_DATABASE_URL) when
 * given, otherwise a throwaway cluster in a temp folder made with Debian's PostgreSQL 15 binaries
 * (`node tooling/scripts/ensure-postgres.mjs` installs them and pgvector), started on 127.0.0.1 and
 * deleted at the end. Unlike the test clusters it keeps durability on (fsync, synchronous commit):
 * the figures are for a server configured as in production, with shared_buffers and
 * maintenance_work_mem raised for the HNSW build.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchArgumentError } from './errors.js';

/** A server to bench against; stop() ends a throwaway one (no-op for a given URL). */
export interface BenchPostgres {
  /** Connection URL of an empty database (never printed: it may hold a password). */
  url: string;
  /** What to print about it. */
  label: string;
  /**
   * CPU seconds the server has used so far (postmaster and its processes, live and exited), read
   * from /proc; null for a given database (its server may be elsewhere or shared).
   */
  cpuSeconds(): number | null;
  stop(): void;
}

const TICKS = 100; // USER_HZ on Linux

/** utime, stime, cutime, cstime (ticks) and ppid of a process, or null when it is gone. */
function procStat(pid: number): { ppid: number; own: number; children: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

/** CPU seconds of the postmaster `pid` (with its exited children) and its live children. */
function clusterCpu(pid: number): number | null {
  const main = procStat(pid);
  if (!main) return null;
  let ticks = main.own + main.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = procStat(Number(entry));
    if (child && child.ppid === pid) ticks += child.own;
  }
  return ticks / TICKS;
}

const BIN = process.env.RECALL_PG_BIN ?? '/usr/lib/postgresql/15/bin';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The URL given, or a new throwaway cluster. */
export async function benchPostgres(given: string | undefined): Promise<BenchPostgres> {
  if (given) return { url: given, label: 'the given database', cpuSeconds: () => null, stop() {} };
  if (!existsSync(join(BIN, 'pg_ctl'))) throw new BenchArgumentError(`${join(BIN, 'pg_ctl')} not found: run node tooling/scripts/ensure-postgres.mjs or pass --database URL`);
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? { uid: Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout), gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout) } : {};
  const dir = mkdtempSync(join(tmpdir(), 'recall-bench-pg-'));
  if ('uid' in ids) chownSync(dir, ids.uid!, ids.gid!);
  const data = join(dir, 'data');
  const run = (tool: string, args: string[]) => {
    const r = spawnSync(join(BIN, tool), args, { ...ids, cwd: dir, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}${r.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale']);
  const port = await freePort();
  const opts = `-k ${dir} -h 127.0.0.1 -p ${port} -c shared_buffers=512MB -c maintenance_work_mem=1GB -c max_wal_size=4GB -c max_parallel_maintenance_workers=1`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-o', opts, '-w', 'start']);
  const psql = (sql: string) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-XAtqc', sql]);
  psql('create database bench');
  const url = `postgresql://postgres@127.0.0.1:${port}/bench`;
  psql('select 1');
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url,
    cpuSeconds: () => clusterCpu(postmaster),
    label: `a throwaway PostgreSQL 15 cluster on 127.0.0.1:${port} (shared_buffers 512MB, fsync on)`,
    stop() {
      spawnSync(join(BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], { ...ids, cwd: dir, timeout: 60_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
