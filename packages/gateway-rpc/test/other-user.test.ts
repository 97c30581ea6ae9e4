/**
 * The threat this gateway's browser auth exists for (SECURITY.md): another Unix account on the same
 * machine. As root (CI), the test creates a throwaway system user and, as that user (`runuser`),
 * runs curl and node against a real running gateway: the page it gets carries no token and no data,
 * /rpc, /launch and the WebSocket refuse it, and it cannot read the token file. Not root: skipped,
 * saying so in the test's title.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, rpc, startTestGateway, tempHome, type TestGateway } from './helpers.js';
import { tokenPath } from '../src/index.js';

const isRoot = process.getuid?.() === 0;
const tools = ['/usr/sbin/useradd', '/usr/sbin/userdel', '/usr/sbin/runuser'].every((path) => existsSync(path)) || spawnSync('sh', ['-c', 'command -v useradd && command -v runuser']).status === 0;
const canRun = isRoot && tools && process.platform === 'linux';
const why = !isRoot ? 'not running as root (needed to create a throwaway user)' : 'useradd/runuser not available';
const USER = `recall-t${process.pid}`;
const PROJECT = 'Secret project of the owner';

/** Async on purpose: the gateway runs in this process, so a synchronous spawn would block it from answering. */
function asOther(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('runuser', ['-u', USER, '--', command, ...args], { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs as the other user: everything an attacker without the token file can try over loopback. */
const ATTACK = String.raw`
const { readFileSync } = require('node:fs');
const http = require('node:http');
const [port, tokenFile] = process.argv.slice(1);
(async () => {
  const out = {};
  try { out.token = readFileSync(tokenFile, 'utf8'); } catch (error) { out.tokenError = error.code; }
  const page = await fetch('http://127.0.0.1:' + port + '/');
  out.pageStatus = page.status; out.page = await page.text(); out.pageCookie = page.headers.get('set-cookie');
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'projects.list', params: {} });
  const call = await fetch('http://127.0.0.1:' + port + '/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  out.rpcStatus = call.status; out.rpc = await call.text();
  const launch = await fetch('http://127.0.0.1:' + port + '/launch');
  out.launchStatus = launch.status; out.launch = await launch.text();
  const guess = await fetch('http://127.0.0.1:' + port + '/?launch=guess', { redirect: 'manual' });
  out.guessStatus = guess.status; out.guessCookie = guess.headers.get('set-cookie');
  out.wsStatus = await new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/rpc', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
    req.on('upgrade', (_res, socket) => { socket.destroy(); resolve(101); });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
    req.on('error', (error) => resolve(error.code));
  });
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe.skipIf(!canRun)(`another Unix user on the machine${canRun ? '' : ` — SKIPPED: ${why}`}`, () => {
  let gw: TestGateway;

  beforeAll(async () => {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
    const dist = join(tempHome(), 'dist');
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head><title>Recall</title></head><body><div id="root"></div></body></html>');
    gw = await startTestGateway({ uiDir: dist });
    await rpc(gw, 'projects.create', { name: PROJECT });
  });

  afterAll(async () => {
    await cleanup();
    spawnSync('userdel', [USER]);
  });

  test('gets neither the token nor any answer from the page, /rpc, /launch or the WebSocket', async () => {
    const res = await asOther(process.execPath, ['-e', ATTACK, String(gw.port), tokenPath(gw.home)]);
    expect(res.status, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.token).toBeUndefined();
    expect(out.tokenError).toBe('EACCES');
    expect(out.pageStatus).toBe(403);
    expect(out.pageCookie).toBeNull();
    expect(out.rpcStatus).toBe(401);
    expect(out.launchStatus).toBe(401);
    expect(out.guessStatus).toBe(403);
    expect(out.guessCookie).toBeNull();
    expect(out.wsStatus).toBe(401);
    const everything = JSON.stringify(out);
    expect(everything).not.toContain(gw.token);
    expect(everything).not.toContain(PROJECT);
    expect(everything).not.toContain('recall-token');
    expect(everything).not.toContain('<div id="root">');
  });

  test('curl | grep recall-token finds nothing', async () => {
    const res = await asOther('curl', ['-s', '-i', `http://127.0.0.1:${gw.port}/`]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(res.stdout).not.toContain('recall-token');
    expect(res.stdout).not.toContain(gw.token);
    expect(res.stdout).not.toMatch(/set-cookie/i);
  });

  test('the owner, with the token, still gets in (control)', async () => {
    const res = await fetch(`http://127.0.0.1:${gw.port}/launch`, { headers: { authorization: `Bearer ${gw.token}` } });
    const launch = (await res.text()).trim();
    const visit = await fetch(launch, { redirect: 'manual' });
    expect(visit.status).toBe(303);
    const cookie = visit.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`http://127.0.0.1:${gw.port}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });
});

