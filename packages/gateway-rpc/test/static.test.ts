/**
 * The desktop UI served by the gateway from a real folder: index.html with the token meta injected
 * and uncached, assets with correct types, SPA fallback for client routes, and every traversal
 * trick (dot segments raw and encoded, backslashes, NUL, symlinks out of the folder) refused.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { injectToken } from '../src/static.js';
import { cleanup, rawRequest, startTestGateway, tempHome, type TestGateway } from './helpers.js';

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
  beforeEach(async () => {
    gw = await startTestGateway({ uiDir: makeUi() });
  });

  test.each(['/', '/index.html', '/projects/p_1/sessions/s_2', '/settings'])('%s serves index.html with the token meta, uncached', async (path) => {
    const res = await rawRequest(gw.port, { path });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain(`<head lang="en"><meta name="recall-token" content="${gw.token}"><title>`);
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
    const res = await rawRequest(gw.port, { path });
    expect(res.text).not.toContain(SECRET);
    if (res.status === 200) {
      // Only the SPA fallback may answer 200 (extension-less unknown paths).
      expect(res.text).toContain('recall-token');
    } else {
      expect([400, 403, 404]).toContain(res.status);
    }
  });

  test('HEAD answers headers only; other methods are 405', async () => {
    const head = await rawRequest(gw.port, { method: 'HEAD', path: '/' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const post = await rawRequest(gw.port, { method: 'POST', path: '/', body: 'x' });
    expect(post.status).toBe(405);
  });

  test('the UI is refused for a foreign Host (DNS rebinding would otherwise read the token)', async () => {
    const res = await rawRequest(gw.port, { path: '/', headers: { host: 'evil.example' } });
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

describe('injectToken', () => {
  test.each([
    ['<html><head><title>x</title></head></html>', '<html><head><meta name="recall-token" content="T"><title>x</title></head></html>'],
    ['<HTML><HEAD data-x="1"></HEAD></HTML>', '<HTML><HEAD data-x="1"><meta name="recall-token" content="T"></HEAD></HTML>'],
    ['<div>no head</div>', '<meta name="recall-token" content="T"><div>no head</div>'],
    ['<head><meta name="recall-token" content="stale"></head>', '<head><meta name="recall-token" content="T"></head>'],
    ['<header>not a head</header><head></head>', '<header>not a head</header><head><meta name="recall-token" content="T"></head>'],
  ])('%s', (html, expected) => {
    expect(injectToken(html, 'T')).toBe(expected);
  });

  test('escapes the attribute value', () => {
    expect(injectToken('<head></head>', '"><script>')).toBe('<head><meta name="recall-token" content="&quot;&gt;&lt;script&gt;"></head>');
  });
});
