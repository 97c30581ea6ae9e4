/**
 * Every command the README, the docs, the package READMEs and the desktop UI's help texts print works
 * as printed on the README's machine (Node + npm only, a clone of this repository):
 * - `npx -y pnpm@10 <script>` names a root package.json script (so `pnpm recall …` style commands,
 *   which need a global pnpm, cannot creep back in);
 * - every `recall <command> [flags]` names a command of the built CLI, and each flag is one that
 *   command's `--help` lists;
 * - a few of them really run from the repository root through the documented prefix on a temp home.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(REPO, 'apps', 'cli', 'dist', 'cli.js');
const PREFIX = 'npx -y pnpm@10';

function files(): string[] {
  const out = [join(REPO, 'README.md')];
  for (const f of readdirSync(join(REPO, 'docs'))) if (f.endsWith('.md')) out.push(join(REPO, 'docs', f));
  for (const group of ['packages', 'apps', 'tooling']) {
    for (const d of readdirSync(join(REPO, group))) {
      try {
        readFileSync(join(REPO, group, d, 'README.md'));
        out.push(join(REPO, group, d, 'README.md'));
      } catch {}
    }
  }
  const ui = join(REPO, 'apps', 'desktop-ui', 'src');
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.(tsx?|md)$/.test(e.name) && !e.name.endsWith('.test.ts')) out.push(join(dir, e.name));
    }
  };
  walk(ui);
  return out;
}

const sources = files().map((file) => ({ file: file.slice(REPO.length), text: readFileSync(file, 'utf8') }));
const rootScripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const commandHelp = new Map<string, string>();
function helpOf(command: string): string | null {
  if (!commandHelp.has(command)) {
    try {
      commandHelp.set(command, execFileSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8' }));
    } catch {
      commandHelp.set(command, '');
    }
  }
  return commandHelp.get(command) || null;
}
const topHelp = execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
const COMMANDS = [...topHelp.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);

/** Words after `recall` that read as a command even when the CLI has none by that name. */
const COMMAND_LIKE = /^(serve|import|search|projects|sessions|mv|index|mcp|sync|eval|backup|export|delete|migrate)$/;

/** `recall <cmd> …` invocations inside code spans and code blocks. */
function invocations(): { file: string; line: string; command: string; flags: string[] }[] {
  const out: { file: string; line: string; command: string; flags: string[] }[] = [];
  for (const { file, text } of sources) {
    const code = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
    const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
    const jsx = [...text.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]!);
    for (const line of [...code, ...spans, ...jsx]) {
      for (const m of line.matchAll(/(?:^|[\s/(])recall(?:\.js)? ([a-z]+)((?: +(?:--?[\w-]+|[^\s|;&`)]+))*)/g)) {
        const command = m[1]!;
        // Prose like "recall of earlier conversations" is not an invocation: only the CLI's commands,
        // `help`, and command names that do not exist (or no longer do) are checked.
        if (!COMMANDS.includes(command) && command !== 'help' && !COMMAND_LIKE.test(command)) continue;
        const flags = [...(m[2] ?? '').matchAll(/(?:^|\s)(--[a-z][\w-]*)/g)].map((f) => f[1]!);
        out.push({ file, line: line.trim(), command, flags });
      }
    }
  }
  return out;
}

const found = invocations();
const work = mkdtempSync(join(tmpdir(), 'recall-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('documented commands', () => {
  test('the docs print commands at all (the scan works)', () => {
    expect(found.length).toBeGreaterThan(20);
    expect(COMMANDS).toEqual(expect.arrayContaining(['serve', 'import', 'search', 'mcp']));
  });

  test('every `npx -y pnpm@10 <script>` names a root script (or install/exec)', () => {
    const bad: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/npx -y pnpm@10 ([\w:-]+)/g)) {
        const script = m[1]!;
        if (!['install', 'exec', 'dlx', '--filter', 'turbo'].includes(script) && !(script in rootScripts)) bad.push(`${file}: ${m[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('no doc tells people to run `pnpm …` without npx (a fresh machine has no global pnpm)', () => {
    const bad: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/(?<![\w@/.-])(?<!npx -y )pnpm (recall|start|build|test|eval|bench[\w:]*|screenshots|tune[\w:]*|install|changeset|release[\w:-]*)\b/g)) bad.push(`${file}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  test('every `recall <command>` is a command of the CLI, with flags its --help lists', () => {
    const bad: string[] = [];
    for (const inv of found) {
      const help = helpOf(inv.command);
      if (help === null) {
        bad.push(`${inv.file}: unknown command "recall ${inv.command}" in: ${inv.line}`);
        continue;
      }
      for (const flag of inv.flags) if (!help.includes(flag) && flag !== '--help') bad.push(`${inv.file}: "recall ${inv.command}" has no ${flag} (in: ${inv.line})`);
    }
    expect(bad).toEqual([]);
  });

  // The README's command table (rows start with a code span without the `recall` prefix, so the
  // scan above does not see them): every row names a command with flags its --help lists, every
  // command of the CLI has a row, and a command with subcommands (`index`) lists each of them.
  test('the README command table lists every command and subcommand of the CLI as its --help prints it', () => {
    const readme = sources.find((s) => s.file === 'README.md')!.text;
    const section = readme.slice(readme.indexOf('## The `recall` CLI'), readme.indexOf('\n## ', readme.indexOf('## The `recall` CLI') + 1));
    const spans = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split(/(?<!\\)\|/)[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll('\\|', '|')))
      .filter((span) => !span.startsWith(PREFIX));
    const bad: string[] = [];
    const listed = new Map<string, Set<string>>();
    for (const span of spans) {
      const [command, second = ''] = span.split(' ');
      const help = helpOf(command!);
      if (help === null) {
        bad.push(`README: no command "${command}" (in: ${span})`);
        continue;
      }
      for (const flag of span.match(/--[a-z][\w-]*/g) ?? []) if (!help.includes(flag)) bad.push(`README: "${command}" has no ${flag} (in: ${span})`);
      const subs = listed.get(command!) ?? new Set<string>();
      for (const word of /^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(second) ? second.split('|') : []) subs.add(word);
      listed.set(command!, subs);
    }
    for (const command of COMMANDS) {
      if (!listed.has(command)) bad.push(`README: no row for "recall ${command}"`);
      const usage = /^Usage: recall [a-z]+ ([a-z]+(?:\|[a-z]+)+) /.exec(helpOf(command) ?? '');
      for (const sub of usage ? usage[1]!.split('|') : []) if (!listed.get(command)?.has(sub)) bad.push(`README: no row for "recall ${command} ${sub}"`);
    }
    expect(spans.length).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });

  test.each([
    ['--version', [] as string[]],
    ['import the demo', ['import', 'apps/desktop-ui/public/demo/recall-demo.jsonl']],
    ['projects', ['projects']],
    ['sessions', ['sessions']],
    ['index status', ['index', 'status']],
  ])('`npx -y pnpm@10 recall %s` runs from the repository root', (_name, args) => {
    const home = join(work, 'home');
    const out = execFileSync('npx', ['-y', 'pnpm@10', '--silent', 'recall', ...args, ...(args.length ? ['--home', home] : ['--version'])], { cwd: REPO, encoding: 'utf8', env: { ...process.env, RECALL_HOME: '' } });
    expect(out.length).toBeGreaterThan(0);
  });
});
