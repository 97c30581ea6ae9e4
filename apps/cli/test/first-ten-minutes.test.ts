/**
 * Issue 20 from the CLI side, as a new user meets it (built dist/cli.js in real child processes on
 * temp homes; a real pseudo-terminal through util-linux `script` for the TTY cases):
 * `recall search QUERY --project/--cwd/--session` with the same scope rules as `recall mcp`, never
 * another project's text; `recall projects create/add-folder/remove-folder` so `--cwd` works without
 * the desktop; the import summary counted as `recall projects` counts; colour on a terminal only
 * (NO_COLOR, --no-color, FORCE_COLOR), one match marker, lines wrapped to the terminal; "did you
 * mean"; help columns; an error prints nothing on stdout; `index status` and `serve` in plain words.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, FIXTURES, json, PLAIN_COLOR_ENV, REPO_ROOT, runCli, startCli, tempDir } from './cli-helpers.js';
import { copyFixture } from '@recall/config/source-fixtures';

// One seeded home for the tests that only read (each child process costs about a second).
let shared = '';
beforeAll(async () => {
  assertCliBuilt();
  shared = await seededHome(mkdtempSync(join(tmpdir(), 'recall-cli-ten-')));
});
afterAll(() => rmSync(shared, { recursive: true, force: true }));
afterEach(() => cleanupTemp());

// eslint-disable-next-line no-control-regex -- ANSI escapes are what these tests look for.
const ANSI = /\u001b\[[0-9;]*m/;
// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const LONG = `The gradle daemon keeps dying on the CI runners. ${'We traced the heap growth to the annotation processor cache and capped it with a flag. '.repeat(8)}`;

/** small.jsonl (Alpha, Beta, a conversation without a project) plus one long Alpha message. */
async function seededHome(home: string = tempDir()): Promise<string> {
  const file = join(home, 'seed.jsonl');
  const extra = [
    { kind: 'session', id: 's-alpha-long', project_id: 'p_alpha', title: 'Alpha: CI daemon', started_at: '2024-03-05T10:00:00Z' },
    { kind: 'message', session_id: 's-alpha-long', external_id: 'l-1', role: 'user', content: LONG, created_at: '2024-03-05T10:00:00Z' },
  ];
  writeFileSync(file, `${readFileSync(join(FIXTURES, 'small.jsonl'), 'utf8').trimEnd()}\n${extra.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const result = await runCli(['import', file, '--home', home]);
  expect(result.code, result.stderr).toBe(0);
  return home;
}

interface ToolResult {
  scope: { kind: string; project_id: string | null };
  results: { session_id: string; snippet: string }[];
  error?: { code: string };
}

/** Runs the CLI on a pseudo-terminal of `cols` columns (util-linux script); stdout and stderr arrive together. */
function runOnTty(args: readonly string[], env: Record<string, string> = {}, cols = 60): { code: number | null; output: string } {
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols ${cols} rows 40; exec ${[process.execPath, CLI_PATH, ...args].map(quote).join(' ')}`;
  const run = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: REPO_ROOT, env: childEnv({ ...PLAIN_COLOR_ENV, ...env }), encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, output: (run.stdout ?? '').replace(/\r\n/g, '\n') };
}
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe('recall search: a whole project, as recall mcp scopes it', () => {
  test.each([
    ['QUERY --project SLUG', ['LNK2019', '--project', 'alpha']],
    ['--query Q --project NAME', ['--query', 'LNK2019', '--project', 'Alpha']],
    ['several words --project ID', ['LNK2019', 'linker', '--project', 'p_alpha', '--mode', 'keyword']],
    ['QUERY --cwd (a folder below the project folder)', ['LNK2019', '--cwd', '/work/alpha/src/deep']],
    ['QUERY --session (that session’s project)', ['LNK2019', '--session', 's-alpha-2']],
  ])('%s searches only Alpha', async (_how, args) => {
    const home = shared;
    const result = await runCli(['search', ...args, '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const out = json<ToolResult>(result);
    expect(out.scope).toEqual({ kind: 'project', project_id: 'p_alpha' });
    expect(out.results.length).toBeGreaterThan(0);
    // s-beta-1 and s-loose say LNK2019 too: never listed from Alpha.
    expect(out.results.every((r) => r.session_id.startsWith('s-alpha-'))).toBe(true);
  });

  test.each([
    ['an unknown session', ['x', '--session', 'nope'], 1, '[caller_session_not_found]'],
    ['an unmapped folder', ['x', '--cwd', '/somewhere/else'], 1, 'recall projects add-folder PROJECT /somewhere/else'],
    ['a near-miss project slug', ['x', '--project', 'alpah'], 1, 'Did you mean alpha?'],
    ['no scope', ['x'], 2, 'One of --session, --project or --cwd is required'],
  ])('%s: nothing on stdout, the reason on stderr', async (_case, args, code, message) => {
    const home = shared;
    const result = await runCli(['search', ...args, '--home', home]);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  test('piped: plain text, «» around matches, one line per snippet', async () => {
    const home = shared;
    const result = await runCli(['search', 'annotation', '--project', 'alpha', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expect(result.stdout).toMatch(/^Project alpha · keyword search · 1 result/);
    expect(result.stdout).toContain('s-alpha-long #');
    const snippet = result.stdout.split('\n').find((l) => l.includes('«annotation»'));
    expect(snippet).toBeDefined();
    expect(snippet!.length).toBeGreaterThan(200);
  });
});

describe('colour, markers and wrapping', () => {
  test.each([
    ['FORCE_COLOR=1', { FORCE_COLOR: '1' }, [], true],
    ['FORCE_COLOR=1 with NO_COLOR=1', { FORCE_COLOR: '1', NO_COLOR: '1' }, [], false],
    ['FORCE_COLOR=1 with --no-color', { FORCE_COLOR: '1' }, ['--no-color'], false],
    ['a pipe', {}, [], false],
  ])('%s → colour %s', async (_how, env, flags, coloured) => {
    const home = shared;
    const result = await runCli(['search', 'LNK2019', '--project', 'alpha', '--home', home, ...flags], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(ANSI.test(result.stdout)).toBe(coloured);
    // One marker either way: highlighted in colour, «» without — never both.
    expect(result.stdout.includes('«')).toBe(!coloured);
    const error = await runCli(['search', 'x', '--project', 'nope', '--home', home, ...flags], { env });
    expect(ANSI.test(error.stderr)).toBe(coloured);
  });

  test.skipIf(!hasScript).each([
    ['a terminal', {}, true],
    ['a terminal with NO_COLOR', { NO_COLOR: '1' }, false],
  ])('on %s: colour %s, every line wrapped to the 60 columns', async (_how, env, coloured) => {
    const home = shared;
    const run = runOnTty(['search', 'annotation', '--project', 'alpha', '--home', home], env);
    expect(run.code, run.output).toBe(0);
    expect(ANSI.test(run.output)).toBe(coloured);
    const lines = stripAnsi(run.output).split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(60);
    // The long message is wrapped over several indented lines, not cut.
    expect(lines.filter((l) => l.startsWith('    ') && /processor|heap|cache/.test(l)).length).toBeGreaterThan(3);
  });
});

describe('usage: did you mean, one prefix, help columns', () => {
  test.each([
    [['serach', 'x'], 'Did you mean "recall search"?'],
    [['search', '--qurey', 'x', '--project', 'alpha'], 'Did you mean --query?'],
    [['index', 'stauts'], 'Did you mean status?'],
    [['projects', 'creat', 'X'], 'Did you mean create?'],
    [['projects', 'add-folder', 'alpha'], '"projects add-folder" needs DIR'],
    [['index', 'enable'], '"index enable" needs --project'],
    [['projects', '--profile', '../x'], '--profile must be 1-64 letters'],
  ])('recall %j exits 2: %s', async (args, message) => {
    const home = tempDir();
    const result = await runCli([...args, '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('recall: recall');
    expect(result.stdout).toBe('');
  });

  test('a near-miss project in mv is suggested, not guessed', async () => {
    const home = shared;
    const result = await runCli(['mv', 's-alpha-2', 'bta', '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Did you mean beta?');
  });

  test('every command’s help keeps a gap between an option and its description', async () => {
    const top = await runCli(['--help']);
    const names = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['search', 'projects', 'mcp', 'sync', 'import']));
    for (const name of names) {
      const help = await runCli([name, '--help']);
      expect(help.code).toBe(0);
      for (const line of help.stdout.split('\n').filter((l) => l.startsWith('  -'))) {
        // "--name VALUE" then at least two spaces, or the option alone (its description on the next line).
        expect(/^ {2}(?:-\w, )?\S+(?: \S+)? {2,}\S/.test(line) || /^ {2}(?:-\w, )?\S+(?: \S+)?$/.test(line), `recall ${name} --help: ${line}`).toBe(true);
      }
    }
  });
});

describe('recall projects create / add-folder / remove-folder', () => {
  test('a project made on the command line scopes --cwd; a folder maps to one project', async () => {
    const home = tempDir(); // a fresh home: creating a project is a first step
    const repo = join(tempDir(), 'gamma-service');
    const web = join(tempDir(), 'gamma-web');
    mkdirSync(join(repo, 'src'), { recursive: true });
    const created = await runCli(['projects', 'create', 'Gamma Service', '--folder', repo, '--home', home]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`Created project gamma-service`);
    expect(created.stdout).toContain(`recall mcp --cwd ${repo}`);
    const list = json<{ projects: { id: string; slug: string; folders: { path: string }[] }[] }>(await runCli(['projects', '--json', '--home', home]));
    const gamma = list.projects.find((p) => p.slug === 'gamma-service')!;
    expect(gamma.folders.map((f) => f.path)).toEqual([repo]);

    const scoped = json<ToolResult>(await runCli(['search', 'anything', '--cwd', join(repo, 'src'), '--json', '--home', home]));
    expect(scoped.scope).toEqual({ kind: 'project', project_id: gamma.id });

    expect((await runCli(['projects', 'add-folder', 'gamma-service', web, '--home', home])).stdout).toContain(`Added folder ${web}`);
    expect((await runCli(['projects', 'create', 'Other', '--home', home])).code).toBe(0);
    const taken = await runCli(['projects', 'add-folder', 'other', web, '--home', home]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`already belongs to project gamma-service`);
    expect(taken.stderr).toContain(`recall projects remove-folder gamma-service ${web}`);

    const removed = await runCli(['projects', 'remove-folder', 'gamma-service', web, '--home', home]);
    expect(removed.code, removed.stderr).toBe(0);
    const unmapped = await runCli(['mcp', '--cwd', web, '--home', home]);
    expect(unmapped.code).toBe(1);
    expect(unmapped.stderr).toContain('[folder_not_in_project]');
    expect(unmapped.stderr).not.toContain('desktop');
  });
});

describe('import summary', () => {
  test('a first import counts conversations as recall projects does, and says subagent text is not searchable', async () => {
    const home = tempDir();
    const dir = copyFixture('claude-code', tempDir());
    // The fixture holds one deliberately broken line: exit 1, everything else imported.
    const first = await runCli(['import', '--from', 'claude-code', dir, '--project-per-folder', '--home', home]);
    expect(first.code).toBe(1);
    expect(first.stdout).not.toMatch(/updated/);
    expect(first.stdout).toMatch(/conversations added: +2 +\(5 sessions: 2 conversations, 1 continuation, 2 hidden subagent sessions\)/);
    expect(first.stdout).toMatch(/Note: subagent work \(2 hidden sessions, 4 messages\) is kept with its conversation but is not searchable/);
    const listed = json<{ projects: { slug: string; conversationCount: number }[] }>(await runCli(['projects', '--json', '--home', home]));
    for (const p of listed.projects) expect(first.stdout).toMatch(new RegExp(`${p.slug} \\(p_\\w+\\): ${p.conversationCount} conversation`));
    // What the note says: the subagent's own words are not found.
    const sub = json<ToolResult>(await runCli(['search', 'Subagent review', '--project', 'alpha', '--mode', 'keyword', '--json', '--home', home]));
    expect(sub.results).toEqual([]);
  });
});

describe('index status and serve say what is configured, in words', () => {
  const USE_LITE = JSON.stringify({ semantic: { enabled: true, provider: 'use-lite' } });

  test.each([
    ['not configured', null, false, /Semantic: off — not configured; keyword search works fully\.\n.*use-lite.*config\.json, then switch on a project/],
    ['a model but no project switched on', USE_LITE, false, /Semantic: configured, but no project is switched on/],
    ['a project switched on, no server', USE_LITE, true, /nothing is indexing now\.\n.*No "recall serve" answered on port/],
  ])('index status: %s', async (_case, config, enable, expected) => {
    const home = await seededHome();
    if (config) writeFileSync(join(home, 'config.json'), config);
    if (enable) expect((await runCli(['index', 'enable', '--project', 'alpha', '--home', home])).code).toBe(0);
    // A port where no gateway runs, whatever the developer's machine has on 7821.
    const result = await runCli(['index', 'status', '--home', home], { env: { RECALL_PORT: '9' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(expected);
    expect(result.stdout).not.toMatch(/partial|— indexing|not_configured|no_project_enabled|index\.project\.enable|<home>/);
  });

  test('serve prints the launch URL once and says whether semantic search and a chat model are configured', async () => {
    const home = await seededHome();
    writeFileSync(join(home, 'config.json'), USE_LITE);
    const server = startCli(['serve', '--home', home, '--port', '0', '--no-ui'], { env: { RECALL_CHAT_MODEL: 'qwen3:8b' } });
    const url = await server.firstLine;
    const deadline = Date.now() + 30_000;
    let stderr = '';
    server.child.stderr!.on('data', (d: string) => (stderr += d));
    while (!stderr.includes('Press Ctrl-C') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    server.child.kill('SIGTERM');
    const exit = await server.exit;
    const all = exit.stdout + exit.stderr;
    expect(all.split(url).length - 1).toBe(1);
    expect(exit.stderr).toMatch(/Semantic search: configured \(universal-sentence-encoder-lite\), but no project is switched on yet/);
    // A model without an endpoint or key is not a usable chat model: say what is missing.
    expect(exit.stderr).toMatch(/Chat model: +not configured — the chat panel needs an endpoint or key/);
    expect(exit.code).toBe(0);
  });
});
