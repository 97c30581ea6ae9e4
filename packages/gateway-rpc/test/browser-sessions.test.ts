/**
 * Only the token's owner opens the UI: the page carries no token and, without a session, no data;
 * a one-time launch URL (from `gw.launchUrl()` or `GET /launch` with the Bearer token) is exchanged
 * once, before it expires, for an HttpOnly SameSite=Strict session cookie that /rpc (same origin
 * only) and the WebSocket accept. Bearer clients work as before. Real gateway, raw HTTP.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rawRequest, rpc, startTestGateway, tempHome } from './helpers.js';
import { sessionCookie, setCookieOf } from './support/browser-session.js';

afterEach(cleanup);

const ROOT_MARKUP = '<div id="root"></div>';

function makeUi(): string {
  const dist = join(tempHome(), 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), `<!doctype html><html><head><title>Recall</title><script type="module" src="./assets/app-1.js"></script></head><body>${ROOT_MARKUP}</body></html>`);
  writeFileSync(join(dist, 'assets', 'app-1.js'), 'console.log("app")');
  return dist;
}

const pathOf = (launchUrl: string): string => {
  const url = new URL(launchUrl);
  return `${url.pathname}${url.search}`;
};

function rpcBody(method: string, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

describe('without a session', () => {
  test.each(['/', '/index.html', '/settings', '/projects/p_1'])('%s is a short "open the launch link" page: no token, no app, no data', async (path) => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    await rpc(gw, 'projects.create', { name: 'Private project of the owner' });
    const res = await rawRequest(gw.port, { path });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toContain('recall serve');
    expect(res.text).toContain('?launch=');
    expect(res.text).not.toContain(gw.token);
    expect(res.text).not.toContain('recall-token');
    expect(res.text).not.toContain(ROOT_MARKUP);
    expect(res.text).not.toContain('Private project');
  });

  test('assets hold no data and are served to anyone', async () => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    const res = await rawRequest(gw.port, { path: '/assets/app-1.js' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('console.log("app")');
  });

  test('/rpc without token or cookie is 401 and runs nothing', async () => {
    const gw = await startTestGateway();
    const res = await rawRequest(gw.port, { method: 'POST', path: '/rpc', headers: { 'content-type': 'application/json' }, body: rpcBody('projects.create', { name: 'x' }) });
    expect(res.status).toBe(401);
    expect(await rpc(gw, 'projects.list')).toEqual({ projects: [] });
  });
});

describe('launch URLs', () => {
  test('a launch code sets the session cookie (HttpOnly, SameSite=Strict, Path=/, not the token) and redirects to / without the code', async () => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    const launch = gw.launchUrl();
    expect(launch).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${gw.port}/\\?launch=[A-Za-z0-9_-]{43}$`));
    expect(launch).not.toContain(gw.token);
    const res = await rawRequest(gw.port, { path: pathOf(launch) });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = setCookieOf(res.headers)!;
    const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
    const [name, value] = pair!.split('=');
    expect(name).toBe(`recall_session_${gw.port}`);
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(value).not.toBe(gw.token);
    expect(cookie).not.toContain(gw.token);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    // A browser-session cookie: no lifetime of its own, and the gateway forgets it on restart.
    expect(attributes.some((a) => /^(max-age|expires)=/i.test(a))).toBe(false);

    const page = await rawRequest(gw.port, { path: '/', headers: { cookie: pair! } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(ROOT_MARKUP);
    expect(page.text).not.toContain(gw.token);
  });

  test('a launch code works once', async () => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    const path = pathOf(gw.launchUrl());
    expect((await rawRequest(gw.port, { path })).status).toBe(303);
    const again = await rawRequest(gw.port, { path });
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.text).not.toContain(gw.token);
  });

  test('a launch code expires', async () => {
    const gw = await startTestGateway({ uiDir: makeUi(), launchCodeTtlMs: 150 });
    const path = pathOf(gw.launchUrl());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await rawRequest(gw.port, { path });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    // A fresh one still works.
    expect((await rawRequest(gw.port, { path: pathOf(gw.launchUrl()) })).status).toBe(303);
  });

  test.each(['', 'wrong', 'A'.repeat(43), 'x'.repeat(5000)])('a wrong code (%#) is refused', async (code) => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    gw.launchUrl();
    const res = await rawRequest(gw.port, { path: `/?launch=${code}` });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('GET /launch with the Bearer token answers a fresh working launch URL; without it, 401', async () => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    expect((await rawRequest(gw.port, { path: '/launch' })).status).toBe(401);
    expect((await rawRequest(gw.port, { path: '/launch', headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await rawRequest(gw.port, { path: '/launch', headers: { cookie: await sessionCookie(gw.port, gw.launchUrl()) } })).status).toBe(401);
    expect((await rawRequest(gw.port, { path: '/launch', headers: { authorization: `Bearer ${gw.token}`, origin: 'http://evil.example' } })).status).toBe(403);
    expect((await rawRequest(gw.port, { method: 'POST', path: '/launch', headers: { authorization: `Bearer ${gw.token}` }, body: '' })).status).toBe(405);
    const res = await rawRequest(gw.port, { path: '/launch', headers: { authorization: `Bearer ${gw.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const url = res.text.trim();
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${gw.port}/\\?launch=`));
    const cookie = await sessionCookie(gw.port, url);
    expect((await rawRequest(gw.port, { path: '/', headers: { cookie } })).status).toBe(200);
  });
});

describe('/rpc with the session cookie', () => {
  test('same origin: accepted; foreign Origin: refused before anything runs (CSRF); Bearer still works', async () => {
    const gw = await startTestGateway();
    const cookie = await sessionCookie(gw.port, gw.launchUrl());
    const own = await rawRequest(gw.port, {
      method: 'POST',
      path: '/rpc',
      headers: { cookie, origin: `http://127.0.0.1:${gw.port}`, 'content-type': 'application/json' },
      body: rpcBody('projects.create', { name: 'From the UI' }),
    });
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ result: { name: 'From the UI' } });

    const foreign = await rawRequest(gw.port, {
      method: 'POST',
      path: '/rpc',
      headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: rpcBody('projects.create', { name: 'From evil' }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({ error: { data: { code: 'forbidden' } } });

    const sameSiteOtherPort = await rawRequest(gw.port, {
      method: 'POST',
      path: '/rpc',
      headers: { cookie, origin: `http://127.0.0.1:${gw.port + 1}`, 'content-type': 'application/json' },
      body: rpcBody('projects.create', { name: 'From another port' }),
    });
    expect(sameSiteOtherPort.status).toBe(403);

    const bearer = await rpc(gw, 'projects.list');
    expect(bearer.projects.map((p: { name: string }) => p.name)).toEqual(['From the UI']);
  });

  test('a cookie of another gateway or a made-up session is refused', async () => {
    const a = await startTestGateway();
    const b = await startTestGateway();
    const cookieOfA = await sessionCookie(a.port, a.launchUrl());
    const renamed = cookieOfA.replace(`recall_session_${a.port}`, `recall_session_${b.port}`);
    for (const cookie of [cookieOfA, renamed, `recall_session_${b.port}=made-up`, `recall_session_${b.port}=`]) {
      const res = await rawRequest(b.port, { method: 'POST', path: '/rpc', headers: { cookie, 'content-type': 'application/json' }, body: rpcBody('projects.list') });
      expect(res.status, cookie).toBe(401);
    }
  });
});
