/**
 * The UI's Content-Security-Policy and dotfiles, on a real gateway serving a real folder: every UI
 * response carries a policy that allows only same-origin script/style/connect (no inline script or
 * style), `object-src 'none'` and `base-uri 'none'`; the built desktop UI (when present) has no
 * inline script or style that the policy would block (the browser tests turn every
 * `securitypolicyviolation` into a failure, tests-e2e/test/csp.test.ts clicks through every view);
 * and no dotfile or dot-folder inside the UI folder is ever served.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rawRequest, startTestGateway, tempHome } from './helpers.js';

afterEach(cleanup);

function makeUi(): string {
  const dist = join(tempHome(), 'dist');
  mkdirSync(join(dist, 'assets', '.cache'), { recursive: true });
  mkdirSync(join(dist, '.git'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head><title>Recall</title></head><body></body></html>');
  writeFileSync(join(dist, 'assets', 'app-1.js'), 'console.log(1)');
  for (const f of ['.env', join('.git', 'config'), join('assets', '.hidden.js'), join('assets', '.cache', 'x.js'), '.DS_Store']) writeFileSync(join(dist, f), 'SECRET=1');
  return dist;
}

const directives = (header: string | string[] | undefined): Map<string, string> =>
  new Map(
    String(header)
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')]),
  );

describe('Content-Security-Policy', () => {
  test.each(['/', '/index.html', '/some/route', '/assets/app-1.js', '/missing.js'])('%s carries the policy', async (path) => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    const res = await rawRequest(gw.port, { path });
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('connect-src')).toBe("'self'");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect(csp.get('frame-ancestors')).toBe("'none'");
    // No inline or eval'd script or style anywhere, no hashes/nonces to widen it, no wildcard sources.
    for (const [name, value] of csp) expect(value, name).not.toMatch(/unsafe-|nonce-|sha\d+-|\*/);
    expect(csp.get('style-src')).toBe("'self'");
    expect(csp.get('img-src')).toBe("'self' data:");
  });

  // The desktop UI's own build, read by path (test data: the gateway serves whatever folder it is given).
  const uiDist = fileURLToPath(new URL('../../../apps/desktop-ui/dist', import.meta.url));
  const built = existsSync(join(uiDist, 'index.html')) ? uiDist : null;
  test.skipIf(built === null)(`the built desktop UI has no inline script, handler or style${built === null ? ' — SKIPPED: apps/desktop-ui/dist not built' : ''}`, () => {
    const html = readFileSync(join(built!, 'index.html'), 'utf8');
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
      expect(tag, 'every script is an external same-origin file').toMatch(/\ssrc="\.?\/assets\//);
      expect(tag.replace(/<script\b[^>]*>/i, '').replace(/<\/script>/i, '').trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
    // No inline style either: the policy has no 'unsafe-inline' for styles.
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(existsSync(join(built!, 'index.html'))).toBe(true);
  });
});

describe('dotfiles', () => {
  test.each(['/.env', '/.git/config', '/.git/', '/assets/.hidden.js', '/assets/.cache/x.js', '/.DS_Store', '/%2Eenv', '/assets/%2ehidden.js'])('%s is 404 and never the file', async (path) => {
    const gw = await startTestGateway({ uiDir: makeUi() });
    const res = await rawRequest(gw.port, { path });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('SECRET');
  });
});
