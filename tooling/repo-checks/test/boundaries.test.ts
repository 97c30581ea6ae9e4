/**
 * The layering rules in turbo.json bite: for each rule, a copy of the workspace gets one offending
 * dependency (declared in package.json and imported from src/), and `turbo boundaries` must fail on
 * it with the tag denylist, while the untouched copy passes. Rules: packages never import apps or
 * tooling; gateway-rpc, chat, importers and search-tool never import semantic; importers import only
 * store and schema; rpc-contract stays a leaf; the storage ports import no adapter; the UI talks to the wire only; the CLI ships no tooling.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const TURBO = join(REPO, 'node_modules', '.bin', 'turbo');
const copies: string[] = [];
afterAll(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true });
});

/** The workspace's tracked and new files (no node_modules, no build output), in a temp folder. */
function copyWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recall-boundaries-'));
  copies.push(dir);
  const list = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  execFileSync('sh', ['-c', `tar -cf - -T - | tar -xf - -C "${dir}"`], { cwd: REPO, input: list });
  return dir;
}

function boundaries(dir: string): { status: number | null; output: string } {
  const r = spawnSync(TURBO, ['boundaries'], { cwd: dir, encoding: 'utf8', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const cases: [from: string, to: string, rule: string][] = [
  ['packages/store', '@recall/cli', 'packages never import apps'],
  ['packages/search-tool', '@recall/bench', 'packages never import tooling'],
  ['packages/gateway-rpc', '@recall/semantic', 'gateway-rpc never imports semantic'],
  ['packages/chat', '@recall/semantic', 'chat never imports semantic'],
  ['packages/importers', '@recall/semantic', 'importers never import semantic'],
  ['packages/search-tool', '@recall/semantic', 'search-tool never imports semantic'],
  ['packages/importers', '@recall/search-tool', 'importers import only store and schema'],
  ['packages/rpc-contract', '@recall/schema', 'rpc-contract stays a leaf'],
  ['packages/storage-ports', '@recall/store', 'the storage ports import no adapter'],
  ['apps/desktop-ui', '@recall/store', 'the UI talks to the wire only'],
  ['apps/cli', '@recall/bench', 'the CLI ships no tooling'],
];

describe('turbo boundaries', () => {
  test('the workspace as it is passes', () => {
    const r = boundaries(copyWorkspace());
    expect(r.output).toMatch(/no issues found/);
    expect(r.status).toBe(0);
  });

  test.each(cases)('%s importing %s fails (%s)', (from, to) => {
    const dir = copyWorkspace();
    const manifestPath = join(dir, from, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dependencies?: Record<string, string> };
    manifest.dependencies = { ...manifest.dependencies, [to]: 'workspace:*' };
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    writeFileSync(join(dir, from, 'src', 'boundary-probe.ts'), `import * as probe from '${to}';\nexport const boundaryProbe = probe;\n`);
    const r = boundaries(dir);
    expect(r.status, r.output).not.toBe(0);
    expect(r.output).toMatch(/denylist/);
  });
});
