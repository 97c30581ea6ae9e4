/**
 * The desktop UI served by the gateway from a real folder: index.html (only with a browser session,
 * never carrying the token) uncached, assets with correct types, SPA fallback for client routes, and every traversal
 * trick (dot segments raw and encoded, backslashes, NUL, symlinks out of the folder) refused.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { cleanup, rawRequest, startTestGateway, tempHome, type TestGateway } from './helpers.js';
import { sessionCookie } from './support/browser-session.js';

afterEach(cleanup);

const SECRET = 'TOP-SECRET-OUTSIDE-THE-UI';

function makeUi(): string {
  const base = tempHome();
  const dist = join(base, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head lang="en"><title>Recall</title></head><body><div id="root"></div></body></html>');
  writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log("app")');
  writeFileSync(join(dist, 'assets', 'style-1234.css'), 'body{}');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  mkdirSync(join(dist, 'demo'));
  writeFileSync(join(dist, 'demo', 'recall-demo.jsonl'), '{"kind":"project","id":"p_0","name":"Demo"}\n');
  writeFileSync(join(base, 'secret.txt'), SECRET);
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), SECRET);
  symlinkSync(join(base, 'outside'), join(dist, 'link-out'));
  symlinkSync(join(base, 'secret.txt'), join(dist, 'assets', 'secret-link.js'));
  return dist;
}

describe('serving the UI', () => {
  let gw: TestGateway;
  let cookie: string;
  beforeEach(async () => {
    gw = await startTestGateway({ uiDir: makeUi() });
    cookie = await sessionCookie(gw.port, gw.launchUrl());
  });

  test.each(['/', '/index.html', '/projects/p_1/sessions/s_2', '/settings'])('%s serves index.html as built (no token) to a session, uncached', async (path) => {
    const res = await rawRequest(gw.port, { path, headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toBe('<!doctype html><html><head lang="en"><title>Recall</title></head><body><div id="root"></div></body></html>');
    expect(res.text).not.toContain(gw.token);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test.each([
    ['/assets/app-1234.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/assets/style-1234.css', 'text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/favicon.svg', 'image/svg+xml', 'no-cache'],
    ['/demo/recall-demo.jsonl', 'application/x-ndjson; charset=utf-8', 'no-cache'],
  ])('%s is served as %s', async (path, type, cache) => {
    const res = await rawRequest(gw.port, { path });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe(cache);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('a missing asset is a 404, not the SPA page', async () => {
    const res = await rawRequest(gw.port, { path: '/assets/missing.js' });
    expect(res.status).toBe(404);
  });

  test.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2E%2E/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/assets%5c..%5c..%5csecret.txt',
    '/%00/secret.txt',
    '/index.html%00.js',
    '/link-out/secret.txt',
    '/assets/secret-link.js',
    '/%',
    '//secret.txt',
  ])('traversal attempt %s is refused and leaks nothing', async (path) => {
    const res = await rawRequest(gw.port, { path, headers: { cookie } });
    expect(res.text).not.toContain(SECRET);
    if (res.status === 200) {
      // Only the SPA fallback may answer 200 (extension-less unknown paths).
      expect(res.text).toContain('<div id="root">');
    } else {
      expect([400, 403, 404]).toContain(res.status);
    }
  });

  test('HEAD answers headers only; other methods are 405', async () => {
    const head = await rawRequest(gw.port, { method: 'HEAD', path: '/', headers: { cookie } });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const post = await rawRequest(gw.port, { method: 'POST', path: '/', body: 'x' });
    expect(post.status).toBe(405);
  });

  test('the UI is refused for a foreign Host (DNS rebinding would otherwise read the token)', async () => {
    const res = await rawRequest(gw.port, { path: '/', headers: { host: 'evil.example', cookie } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain(gw.token);
  });
});

describe('without a built UI', () => {
  test('the root explains how to build it; /rpc still works', async () => {
    const gw = await startTestGateway({ uiDir: null });
    const res = await rawRequest(gw.port, { path: '/' });
    expect(res.status).toBe(404);
    expect(res.text).toMatch(/no desktop UI/);
    expect(res.text).not.toContain(gw.token);
  });
});
