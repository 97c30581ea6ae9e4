/**
 * Runs a real `recall serve` (the built CLI, as a child process) on a fresh temp home and a free
 * loopback port (`--port 0`), reads the one-time launch URL it prints as its first stdout line and
 * the token from `<home>/gateway.token`, and stops it with SIGTERM (SIGKILL only if it does not exit
 * in time). A browser context gets into the UI the way a user does: through a launch URL — the
 * printed one first, then fresh ones from `GET /launch` with the token ({@link entryUrl}).
 * The child gets an environment without RECALL_* / OPENAI_* variables, so a developer's own setup
 * (home, profile, embedding provider) can never leak into a test: semantic search is "disabled".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBuilt, CLI_PATH, REPO_ROOT } from './paths.js';
import type { BrowserContext } from 'playwright-core';
import type { Cleanup } from './cleanup.js';
import { RpcClient } from './rpc.js';

export interface RecallServer {
  /** The UI's URL, e.g. http://127.0.0.1:41234/ (a browser needs a session first: see {@link entryUrl}). */
  url: string;
  /** The one-time launch URL `recall serve` printed as its first stdout line (http://127.0.0.1:PORT/?launch=…). */
  printedLaunchUrl: string;
  /** A launch URL nobody used yet: the printed one the first time, then a fresh one from `GET /launch`. */
  launchUrl: () => Promise<string>;
  rpcUrl: string;
  port: number;
  token: string;
  home: string;
  rpc: RpcClient;
  /** Everything the child wrote to stderr so far (for failure messages). */
  stderr: () => string;
  stop: () => Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(RECALL_|OPENAI_)/.test(k)) continue;
    env[k] = v;
  }
  env.NO_COLOR = '1';
  // Only what the test itself sets (e.g. RECALL_CHAT_MODEL / RECALL_CHAT_BASE_URL of a scripted model).
  return { ...env, ...extra };
}

/** Launch URLs by the running servers' origins, so {@link entryUrl} needs only the page's URL. */
const launchers = new Map<string, () => Promise<string>>();

/**
 * Where a browser context should navigate to open `url` + `hash`: the URL itself when the context
 * already holds that gateway's session cookie, else a launch URL with the hash (the gateway's 303 to
 * `/` keeps the fragment), which sets the cookie on the way.
 */
export async function entryUrl(context: BrowserContext, url: string, hash = ''): Promise<string> {
  const { origin, port } = new URL(url);
  const launcher = launchers.get(origin);
  if (launcher === undefined) return url + hash;
  const cookies = await context.cookies(origin);
  if (cookies.some((c) => c.name === `recall_session_${port}`)) return url + hash;
  return (await launcher()) + hash;
}

/** Makes a temp directory that `cleanup` removes. */
export async function tempDir(cleanup: Cleanup, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.add(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  return dir;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * Starts `recall serve --home <temp> --port 0`; its stop and the temp home are registered in `cleanup`.
 * `options.env` adds variables to the child's (otherwise scrubbed of RECALL_ and OPENAI_ variables) environment;
 * `options.config` is written as `<home>/config.json` first (e.g. a `semantic` section).
 */
export async function startRecallServer(
  cleanup: Cleanup,
  options: { env?: Record<string, string>; config?: Record<string, unknown> } = {},
): Promise<RecallServer> {
  assertBuilt();
  const home = await tempDir(cleanup, 'recall-e2e-home-');
  if (options.config) await writeFile(join(home, 'config.json'), JSON.stringify(options.config, null, 2));
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--home', home, '--port', '0'], {
    cwd: REPO_ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Last resort if the test runner itself dies: never leave a gateway behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_TIMEOUT_MS);
      throw new Error(`recall serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM (killed). stderr:\n${stderr}`);
    }
    if (child.exitCode !== 0) throw new Error(`recall serve exited with ${child.exitCode ?? child.signalCode} after SIGTERM. stderr:\n${stderr}`);
  };
  // Registered after the temp home, so it runs before the home is removed.
  cleanup.add('stop recall serve', stop);

  const printedLaunchUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`recall serve printed no URL within ${START_TIMEOUT_MS} ms. stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, START_TIMEOUT_MS);
    const onData = (d: string) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => /^http:\/\/127\.0\.0\.1:\d+\/\?launch=[A-Za-z0-9_-]+\s*$/.test(l));
      if (line) {
        finish();
        resolve(line.trim());
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      finish();
      reject(new Error(`recall serve exited early (${code ?? signal}). stderr:\n${stderr}`));
    };
    const finish = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.once('exit', onExit);
  });

  const url = new URL('/', printedLaunchUrl).toString();
  const port = Number(new URL(url).port);
  const token = (await readFile(join(home, 'gateway.token'), 'utf8')).trim();
  const rpcUrl = new URL('rpc', url).toString();
  const rpc = new RpcClient(rpcUrl, token);
  let printedUnused = true;
  const launchUrl = async (): Promise<string> => {
    if (printedUnused) {
      printedUnused = false;
      return printedLaunchUrl;
    }
    const res = await fetch(new URL('/launch', url), { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    if (res.status !== 200) throw new Error(`GET /launch answered HTTP ${res.status}`);
    return (await res.text()).trim();
  };
  const origin = new URL(url).origin;
  launchers.set(origin, launchUrl);
  cleanup.add('forget the launch URLs', () => void launchers.delete(origin));
  return { url, printedLaunchUrl, launchUrl, rpcUrl, port, token, home, rpc, stderr: () => stderr, stop };
}
