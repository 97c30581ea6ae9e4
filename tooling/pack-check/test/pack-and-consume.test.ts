/**
 * The packages as a gateway developer gets them: every publishable workspace package is packed
 * (`pnpm pack`, which applies publishConfig and turns workspace: ranges into versions), checked by
 * publint --strict and attw --profile esm-only, and installed with plain npm (--engine-strict) into
 * a scratch project outside the workspace. A stage-A-only install (no @recall/semantic tarball)
 * type-checks a consumer program under node16 and bundler resolution, runs it (two projects, a
 * Chinese message, keyword session_search, project B's text never returned), and starts
 * `recall serve`, which serves the UI at / and answers a keyword search over JSON-RPC. Then the
 * semantic tarball is added (the full install) and a stage-B consumer compiles and runs. Both
 * install sizes are printed (docs/benchmarks.md records them). `pnpm publish -r --dry-run` runs
 * last, so a manifest that cannot publish fails the build.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const SETUP_TIMEOUT = 900_000;

interface Pkg {
  name: string;
  dir: string;
  version: string;
  tarball: string;
}

function publishablePackages(): Omit<Pkg, 'tarball'>[] {
  const out: Omit<Pkg, 'tarball'>[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(REPO, group))) {
      const file = join(REPO, group, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; private?: boolean };
      if (manifest.private === true) continue;
      out.push({ name: manifest.name, dir: join(REPO, group, entry), version: manifest.version });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}\n${e.message}`);
  }
}

/** Bytes under a folder (apparent sizes, like `du -sb`). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

function countPackages(nodeModules: string): number {
  let n = 0;
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) n += readdirSync(join(nodeModules, entry)).length;
    else n++;
  }
  return n;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

const work = mkdtempSync(join(tmpdir(), 'recall-pack-'));
const tarDir = join(work, 'tarballs');
const project = join(work, 'consumer');
let packages: Pkg[] = [];
const sizes: Record<string, { bytes: number; packages: number }> = {};

const NPM_FLAGS = ['--no-audit', '--no-fund', '--engine-strict', '--loglevel=error'];
// Versions a consumer would pick; typescript and the types our .d.ts need (peer dependencies).
const CONSUMER_DEV = ['typescript@5.9.3', '@types/node@20.19.43', '@types/better-sqlite3@7.6.13'];

beforeAll(() => {
  mkdirSync(tarDir, { recursive: true });
  packages = publishablePackages().map((p) => {
    const before = new Set(readdirSync(tarDir));
    run('npx', ['-y', 'pnpm@10', 'pack', '--pack-destination', tarDir], p.dir);
    const made = readdirSync(tarDir).filter((f) => !before.has(f));
    if (made.length !== 1) throw new Error(`pnpm pack in ${p.dir} made ${made.length} files`);
    return { ...p, tarball: join(tarDir, made[0]!) };
  });
}, SETUP_TIMEOUT);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const tarball = (name: string): string => {
  const p = packages.find((x) => x.name === name);
  if (!p) throw new Error(`${name} is not a publishable package`);
  return p.tarball;
};

describe('every publishable package', () => {
  test('the expected packages are publishable, at one version line each', () => {
    expect(packages.map((p) => p.name)).toEqual([
      '@recall/chat',
      '@recall/cli',
      '@recall/gateway-rpc',
      '@recall/importers',
      '@recall/redaction',
      '@recall/rpc-contract',
      '@recall/schema',
      '@recall/search-tool',
      '@recall/semantic',
      '@recall/storage-ports',
      '@recall/store',
    ]);
  });

  test('tarballs hold only the build, bins, the UI, migrations and the docs files — never tests, benches, eval or sources', () => {
    for (const p of packages) {
      const files = run('tar', ['-tzf', p.tarball], work)
        .split('\n')
        .filter(Boolean)
        .map((f) => f.replace(/^package\//, ''));
      const allowed = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+|bin\/.+|ui\/.+|drizzle\/.+)$/;
      expect(files.filter((f) => !allowed.test(f)), p.name).toEqual([]);
      expect(files.filter((f) => /(^|\/)(test|tests|bench|eval)\//.test(f) || /\.test\.|\.ts$/.test(f.replace(/\.d\.ts$/, ''))), p.name).toEqual([]);
      for (const required of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) expect(files, `${p.name} ${required}`).toContain(required);
    }
  });

  test('manifests: MIT, description, repository, engines, no source condition, no workspace: ranges', () => {
    for (const p of packages) {
      const manifest = JSON.parse(run('tar', ['-xzOf', p.tarball, 'package/package.json'], work)) as Record<string, unknown>;
      expect(manifest.license, p.name).toBe('MIT');
      expect(typeof manifest.description, p.name).toBe('string');
      expect(manifest.repository, p.name).toMatchObject({ type: 'git', directory: expect.any(String) });
      expect(manifest.engines, p.name).toEqual({ node: '>=20.19' });
      expect(JSON.stringify(manifest.exports ?? {}), p.name).not.toContain('"source"');
      expect(JSON.stringify(manifest), p.name).not.toContain('workspace:');
      expect(JSON.stringify(manifest), p.name).not.toContain('catalog:');
    }
  });

  test('publint --strict finds nothing', async () => {
    const { publint } = await import('publint');
    const { formatMessage } = await import('publint/utils');
    for (const p of packages) {
      const buffer = readFileSync(p.tarball);
      const tar = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
      const { messages, pkg } = await publint({ pack: { tarball: tar }, strict: true, level: 'suggestion' });
      expect(messages.map((m) => formatMessage(m, pkg) ?? m.code), p.name).toEqual([]);
    }
  });

  test('attw --profile esm-only finds no problem', () => {
    const attw = join(HERE, '..', 'node_modules', '.bin', 'attw');
    for (const p of packages) {
      let out: string;
      try {
        out = execFileSync(attw, [p.tarball, '--profile', 'esm-only', '--format', 'json', '--no-color'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        out = (error as { stdout?: string }).stdout ?? '';
      }
      const report = JSON.parse(out) as { analysis?: { problems?: { resolutionKind?: string }[] } };
      // The esm-only profile: CommonJS consumers (node10, node16-cjs) are out of scope for ESM-only packages.
      const problems = (report.analysis?.problems ?? []).filter((p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs');
      expect(problems, `${p.name}: ${JSON.stringify(problems).slice(0, 2000)}`).toEqual([]);
    }
  });
});

describe('a stage-A-only install with plain npm, outside the workspace', () => {
  beforeAll(() => {
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'recall-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2));
    // The documented keyword-only install: without the semantic tarball and with --omit=optional (a
    // published @recall/cli lists @recall/semantic as an optional dependency).
    const stageA = packages.filter((p) => p.name !== '@recall/semantic').map((p) => p.tarball);
    run('npm', ['install', ...NPM_FLAGS, '--omit=optional', ...stageA], project);
    sizes['stage A (gateway + cli, no semantic)'] = { bytes: folderBytes(join(project, 'node_modules')), packages: countPackages(join(project, 'node_modules')) };
    run('npm', ['install', ...NPM_FLAGS, '--save-dev', ...CONSUMER_DEV], project);
    cpSync(join(HERE, 'consumer'), join(project, 'src'), { recursive: true });
  }, SETUP_TIMEOUT);

  test('installs without @recall/semantic or its model packages', () => {
    expect(existsSync(join(project, 'node_modules', '@recall', 'semantic'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', '@energetic-ai'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'usearch'))).toBe(false);
  });

  test.each([
    { resolution: 'node16', compilerOptions: { module: 'node16', moduleResolution: 'node16' } },
    { resolution: 'bundler', compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } },
  ])('the consumer type-checks with $resolution resolution from the published .d.ts', ({ resolution, compilerOptions }) => {
    const config = join(project, `tsconfig.${resolution}.json`);
    writeFileSync(
      config,
      // skipLibCheck: third-party .d.ts (drizzle's other dialects) do not check without their optional drivers; the
      // consumer asserts instead that our public types are not `any` (a missing types package would make them so).
      JSON.stringify({ compilerOptions: { target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], ...compilerOptions }, files: ['src/stage-a.ts'] }, null, 2),
    );
    run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', config], project);
  });

  test('the consumer runs: project A finds its Chinese message, never project B text', () => {
    const config = join(project, 'tsconfig.emit.json');
    writeFileSync(config, JSON.stringify({ compilerOptions: { target: 'es2022', module: 'node16', moduleResolution: 'node16', strict: true, outDir: 'out', types: ['node'], skipLibCheck: true }, files: ['src/stage-a.ts'] }, null, 2));
    run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', config], project);
    const out = JSON.parse(run(process.execPath, [join(project, 'out', 'stage-a.js')], project).trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toMatchObject({ ok: true, results: 1 });
  });

  test('`recall serve` starts, serves the desktop UI at / and answers a keyword search', async () => {
    const home = join(work, 'serve-home');
    const child = spawn(join(project, 'node_modules', '.bin', 'recall'), ['serve', '--home', home, '--port', '0'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RECALL_HOME: '' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr: ${stderr}`)), 30_000);
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const line = out.split('\n').find((l) => l.startsWith('http://'));
          if (line) {
            clearTimeout(timer);
            resolve(line.trim());
          }
        });
        child.once('exit', (code) => reject(new Error(`recall serve exited ${code}: ${stderr}`)));
      });
      // The first line is the one-time launch URL: it sets the session cookie and redirects to /.
      const launch = await fetch(url, { redirect: 'manual' });
      expect(launch.status).toBe(303);
      const cookie = (launch.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(cookie).toMatch(/^recall_session_\d+=/);
      const page = await fetch(new URL('/', url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      const token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
      let id = 0;
      const rpc = async (method: string, params: unknown): Promise<any> => {
        const res = await fetch(new URL('/rpc', url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
        const body = (await res.json()) as { result?: unknown; error?: unknown };
        if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
        return body.result;
      };
      const a = await rpc('projects.create', { name: 'A' });
      const b = await rpc('projects.create', { name: 'B' });
      await rpc('session.create', { projectId: a.id, title: 'old', messages: [{ role: 'user', content: '番茄炒蛋要先炒鸡蛋' }] });
      await rpc('session.create', { projectId: b.id, title: 'other', messages: [{ role: 'user', content: '番茄炒蛋 project B only' }] });
      const now = await rpc('session.create', { projectId: a.id, title: 'now', messages: [{ role: 'user', content: 'hi' }] });
      const found = await rpc('search.session_search', { sessionId: now.id, query: '番茄炒蛋' });
      const text = JSON.stringify(found);
      expect(text).toContain('先炒鸡蛋');
      expect(text).not.toContain('project B only');
      expect(found).toMatchObject({ semantic_status: 'disabled' });
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
  });

  describe('adding the semantic tarball (the full install)', () => {
    beforeAll(() => {
      run('npm', ['install', ...NPM_FLAGS, tarball('@recall/semantic')], project);
      const nm = join(project, 'node_modules');
      sizes['full (with @recall/semantic)'] = { bytes: folderBytes(nm) - folderBytes(join(nm, 'typescript')) - folderBytes(join(nm, '@types')), packages: countPackages(nm) - 1 - readdirSync(join(nm, '@types')).length };
    }, SETUP_TIMEOUT);

    test('the stage-B consumer type-checks and runs', () => {
      const config = join(project, 'tsconfig.b.json');
      writeFileSync(config, JSON.stringify({ compilerOptions: { target: 'es2022', module: 'node16', moduleResolution: 'node16', strict: true, outDir: 'out', types: ['node'], skipLibCheck: true }, files: ['src/stage-b.ts'] }, null, 2));
      run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', config], project);
      const out = JSON.parse(run(process.execPath, [join(project, 'out', 'stage-b.js')], project).trim().split('\n').pop()!) as Record<string, unknown>;
      expect(out).toMatchObject({ ok: true, active: false, hasTool: true });
    });

    test('install sizes (printed for docs/benchmarks.md)', () => {
      const lines = Object.entries(sizes).map(([k, v]) => `pack-check: ${k}: ${mb(v.bytes)} in ${v.packages} packages`);
      console.log(lines.join('\n'));
      expect(Object.keys(sizes)).toHaveLength(2);
      expect(sizes['stage A (gateway + cli, no semantic)']!.bytes).toBeLessThan(sizes['full (with @recall/semantic)']!.bytes);
    });
  });
});

describe('publishing', () => {
  test('`pnpm publish -r --dry-run` accepts every manifest', () => {
    const out = run('npx', ['-y', 'pnpm@10', 'publish', '-r', '--dry-run', '--no-git-checks', '--report-summary'], REPO);
    expect(out).not.toMatch(/ERR_PNPM/);
    const summary = JSON.parse(readFileSync(join(REPO, 'pnpm-publish-summary.json'), 'utf8')) as { publishedPackages: { name: string }[] };
    rmSync(join(REPO, 'pnpm-publish-summary.json'), { force: true });
    expect(summary.publishedPackages.map((p) => p.name).sort()).toEqual(packages.map((p) => p.name));
  });
});
