/**
 * Test support for packages that test against a REAL PostgreSQL (team mode, issue 19): a throwaway
 * cluster per test file, made with Debian's PostgreSQL 15 binaries (`node
 * tooling/scripts/ensure-postgres.mjs` installs them and pgvector). `initdb` and `postgres` refuse
 * to run as root, so as root the temp folder is given to the `postgres` OS user and both run as that
 * user (spawned with its uid/gid); as any other user they run as that user. The server listens on a
 * Unix socket in the temp folder and on 127.0.0.1 at a free port, with `trust` authentication and
 * durability switched off (fsync, synchronous_commit): it holds nothing worth keeping. Every wait is
 * bounded; a cluster that cannot start throws with the server's log, so a test fails with the
 * reason instead of being skipped. This package depends on no database client: it drives `psql`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running throwaway PostgreSQL cluster. */
export interface ThrowawayPostgres {
  /** Connection URL of its `postgres` database as superuser `postgres` over 127.0.0.1. */
  readonly url: string;
  /** The TCP port on 127.0.0.1. */
  readonly port: number;
  /** The folder holding the socket, `data/` and `postgres.log`; deleted by stop(). */
  readonly dir: string;
  /** Creates a new empty database (named `prefix_<n>`) and returns its URL: one per test isolates tests. */
  createDatabase(prefix?: string): string;
  /**
   * Stops the server (fast shutdown: every connection is cut), keeps it down for `downMs` (default
   * 0), then starts it again on the same port with the same data and waits until it accepts
   * connections — a database restart in the middle of a test.
   */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server (fast shutdown, then SIGKILL after the timeout) and deletes the folder. Idempotent. */
  stop(): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /** Folder of initdb/postgres/psql; default RECALL_PG_BIN or /usr/lib/postgresql/15/bin. */
  binDir?: string;
  /** Bound on each wait (initdb, start, stop); default 30 000 ms. */
  timeoutMs?: number;
}

const DEFAULT_BIN = '/usr/lib/postgresql/15/bin';
const SETUP_HINT = 'run `node tooling/scripts/ensure-postgres.mjs` (as root it installs postgresql-15 and pgvector)';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** uid/gid of the `postgres` OS user, when we are root (initdb/postgres refuse to run as root). */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string): number => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`throwaway postgres: running as root needs the "postgres" OS user (id ${flag} postgres: ${r.stderr.trim()}); ${SETUP_HINT}`);
    return Number(r.stdout.trim());
  };
  return { uid: id('-u'), gid: id('-g') };
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a throwaway cluster with `CREATE EXTENSION vector` available (checked: created once in the
 * `postgres` database). Call stop() in afterAll. Throws a clear error after `timeoutMs` at most.
 */
export async function startThrowawayPostgres(options: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const bin = options.binDir ?? process.env.RECALL_PG_BIN ?? DEFAULT_BIN;
  const timeoutMs = options.timeoutMs ?? 30_000;
  for (const tool of ['initdb', 'postgres', 'psql']) {
    if (!existsSync(join(bin, tool))) throw new Error(`throwaway postgres: ${join(bin, tool)} not found; ${SETUP_HINT}`);
  }
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'recall-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const asServer = user ? { uid: user.uid, gid: user.gid } : {};
  let child: ChildProcess | null = null;
  let exited = false;
  const killOnExit = (): void => {
    if (child && !exited) child.kill('SIGQUIT');
  };
  const cleanup = (): void => {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'], {
      ...asServer,
      cwd: dir,
      encoding: 'utf8',
      timeout: timeoutMs,
    });
    if (init.status !== 0) {
      throw new Error(`throwaway postgres: initdb failed (${init.error?.message ?? `exit ${init.status}`}):\n${init.stderr}${init.stdout}`);
    }
    const port = await freePort();
    const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
    const args = ['-D', data, '-k', dir, '-h', '127.0.0.1', '-p', String(port), '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'logging_collector=off'];
    let exitedPromise: Promise<void> = Promise.resolve();
    const launch = (): void => {
      const logFd = openSync(log, 'a');
      if (user) chownSync(log, user.uid, user.gid);
      exited = false;
      const started = spawn(join(bin, 'postgres'), args, { ...asServer, cwd: dir, stdio: ['ignore', logFd, logFd] });
      child = started;
      closeSync(logFd);
      exitedPromise = new Promise<void>((resolve) => started.once('exit', () => ((exited = true), resolve())));
    };
    launch();
    process.on('exit', killOnExit);

    const psql = (database: string, sql: string) =>
      spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-XAtqc', sql], {
        encoding: 'utf8',
        timeout: timeoutMs,
      });

    const ready = async (): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (exited) throw new Error(`throwaway postgres: the server exited while starting:\n${tail(log)}`);
        const probe = psql('postgres', 'select 1');
        if (probe.status === 0) break;
        if (Date.now() > deadline) throw new Error(`throwaway postgres: not accepting connections on 127.0.0.1:${port} after ${timeoutMs} ms:\n${probe.stderr}\n${tail(log)}`);
        await sleep(100);
      }
    };
    await ready();
    const vector = psql('postgres', 'create extension if not exists vector');
    if (vector.status !== 0) throw new Error(`throwaway postgres: CREATE EXTENSION vector failed (${vector.stderr.trim()}); ${SETUP_HINT}`);

    let counter = 0;
    let stopped = false;
    return {
      url,
      port,
      dir,
      createDatabase(prefix = 'test') {
        const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${++counter}`;
        const r = psql('postgres', `create database "${name}"`);
        if (r.status !== 0) throw new Error(`throwaway postgres: create database ${name} failed: ${r.stderr.trim()}`);
        return `postgresql://postgres@127.0.0.1:${port}/${name}`;
      },
      async restart(options = {}) {
        if (stopped) throw new Error('throwaway postgres: restart() after stop()');
        if (!exited) {
          child!.kill('SIGINT');
          const timedOut = await Promise.race([exitedPromise.then(() => false), sleep(timeoutMs).then(() => true)]);
          if (timedOut) throw new Error(`throwaway postgres: the server did not stop within ${timeoutMs} ms:\n${tail(log)}`);
        }
        if (options.downMs) await sleep(options.downMs);
        launch();
        await ready();
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (!exited) {
          child!.kill('SIGINT'); // fast shutdown: disconnects clients, no checkpoint wait for them
          const timedOut = await Promise.race([exitedPromise.then(() => false), sleep(timeoutMs).then(() => true)]);
          if (timedOut) {
            child!.kill('SIGKILL');
            await Promise.race([exitedPromise, sleep(5_000)]);
          }
        }
        cleanup();
      },
    };
  } catch (error) {
    const running = child as ChildProcess | null; // assigned inside launch(), which TS does not follow
    if (running && !exited) running.kill('SIGKILL');
    cleanup();
    throw error;
  }
}
