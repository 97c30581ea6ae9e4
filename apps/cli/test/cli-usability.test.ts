/**
 * The CLI as a first-time user meets it (built dist/cli.js in real child processes, temp homes):
 * read-only commands refuse a home or profile that does not exist instead of creating an empty
 * store; `mv` takes a project id, slug or name, refuses a no-op move and names the missing
 * argument; `sessions` shows project names; `projects` counts conversations as the sidebar does (a
 * compression continuation is part of its conversation).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, cleanupTemp, FIXTURES, json, runCli, tempDir } from './cli-helpers.js';
import { CC_ALPHA, copyFixture } from '@recall/config/source-fixtures';

beforeAll(() => assertCliBuilt());
afterEach(() => cleanupTemp());

async function seededHome(): Promise<string> {
  const home = tempDir();
  const extra = join(home, 'continuation.jsonl');
  // s-alpha-1 continues in s-alpha-1b (compression): one conversation of two sessions.
  writeFileSync(
    extra,
    [
      { kind: 'session', id: 's-alpha-1b', project_id: 'p_alpha', lineage: 'compression', parent_session_id: 's-alpha-1', title: 'Alpha: flaky linker (cont.)' },
      { kind: 'message', session_id: 's-alpha-1b', external_id: 'c-1', role: 'user', content: 'still failing after the zlib change' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
  );
  for (const file of [join(FIXTURES, 'small.jsonl'), extra]) {
    const result = await runCli(['import', file, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
  }
  return home;
}

describe('a home or profile that does not exist', () => {
  test.each([
    [['projects']],
    [['sessions']],
    [['mv', 's1', 'none']],
    [['index', 'status']],
    [['search', '--session', 's1', '--query', 'x']],
    [['mcp', '--session', 's1']],
  ])('recall %j fails with profile_not_found and creates nothing', async (args) => {
    const home = join(tempDir(), 'typo-home');
    const result = await runCli([...args, '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`No Recall home at ${home}`);
    expect(result.stderr).toContain('[profile_not_found]');
    expect(existsSync(home)).toBe(false);
  });

  test('an existing home with a mistyped --profile is refused too', async () => {
    const home = await seededHome();
    const result = await runCli(['projects', '--home', home, '--profile', 'wrok']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No profile "wrok"');
    expect(existsSync(join(home, 'profiles', 'wrok'))).toBe(false);
  });

  test('import creates the home (it creates data)', async () => {
    const home = join(tempDir(), 'new-home');
    const result = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(home, 'profiles', 'default', 'recall.db'))).toBe(true);
  });
});

describe('mv', () => {
  test.each([
    ['the id', 'p_beta'],
    ['the slug', 'beta'],
    ['the name', 'Beta'],
    ['the name in another case', 'BETA'],
  ])('accepts %s of the project', async (_how, ref) => {
    const home = await seededHome();
    const moved = await runCli(['mv', 's-alpha-2', ref, '--home', home]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain('to Beta (p_beta)');
    const beta = json<{ sessions: { id: string }[] }>(await runCli(['sessions', '--project', 'beta', '--home', home, '--json']));
    expect(beta.sessions.map((s) => s.id)).toContain('s-alpha-2');
  });

  test.each([
    ['its own project', 's-alpha-2', 'Alpha', 'is already in Alpha (p_alpha)'],
    ['no project when it has none', 's-loose', 'none', 'is already without a project'],
  ])('a move to %s writes nothing, says so and exits 0', async (_case, session, target, message) => {
    const home = await seededHome();
    const before = json<{ sessions: { id: string; projectId: string | null; updatedAt: number }[] }>(await runCli(['sessions', '--home', home, '--json']));
    const result = await runCli(['mv', session, target, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('nothing moved');
    expect(result.stdout).toBe('');
    const asJson = await runCli(['mv', session, target, '--home', home, '--json']);
    expect(json<{ sessionIds: string[] }>(asJson).sessionIds).toEqual([]);
    const after = json<{ sessions: unknown[] }>(await runCli(['sessions', '--home', home, '--json']));
    expect(after.sessions).toEqual(before.sessions);
  });

  test('an unknown project reference is project_not_found and says what it tried', async () => {
    const home = await seededHome();
    const result = await runCli(['mv', 's-alpha-2', 'Gamma', '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No project with id, slug or name "Gamma"');
  });
});

describe('--project names a project the same way in every command', () => {
  test('import --from claude-code --project accepts the name (new conversations go there)', async () => {
    const home = await seededHome();
    // The fixture holds one deliberately broken line (reported, exit 2); everything else imports.
    const imported = await runCli(['import', '--from', 'claude-code', copyFixture('claude-code', tempDir()), '--project', 'Beta', '--home', home]);
    expect(imported.stderr).not.toContain('No project');
    expect(imported.stdout).toContain('Imported claude-code');
    const beta = json<{ sessions: { id: string }[] }>(await runCli(['sessions', '--project', 'beta', '--home', home, '--json']));
    expect(beta.sessions.map((s) => s.id)).toContain(CC_ALPHA);
  });

  test('index status --project accepts the name', async () => {
    const home = await seededHome();
    const result = await runCli(['index', 'status', '--project', 'Beta', '--home', home, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('p_beta');
  });

  test.each([
    ['import', () => ['import', '--from', 'claude-code', copyFixture('claude-code', tempDir()), '--project', 'Gamma']],
    ['index status', () => ['index', 'status', '--project', 'Gamma']],
    ['mcp', () => ['mcp', '--project', 'Gamma']],
    ['sync', () => ['sync', '--once', '--project', 'Gamma']],
  ])('%s: an unknown reference says it tried id, slug and name', async (_command, args) => {
    const home = await seededHome();
    const result = await runCli([...args(), '--home', home]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('No project with id, slug or name "Gamma"');
  });
});

describe('listings', () => {
  test('sessions shows project names; projects counts conversations as the sidebar does', async () => {
    const home = await seededHome();
    const sessions = await runCli(['sessions', '--home', home]);
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout).toMatch(/s-alpha-1\s+Alpha\s+/);
    expect(sessions.stdout).toMatch(/s-beta-1\s+Beta\s+/);
    expect(sessions.stdout).not.toMatch(/\sp_alpha\s/);
    const projects = await runCli(['projects', '--home', home]);
    // Alpha: s-alpha-1 (+ its continuation s-alpha-1b) and s-alpha-2 = 2 conversations, 3 sessions.
    // The slug is listed: it is what `mv`, `sessions --project` and `mcp --project` accept by name.
    expect(projects.stdout).toMatch(/p_alpha\s+alpha\s+2\s+\/work\/alpha\s+Alpha/);
    const asJson = json<{ projects: { id: string; sessionCount: number; conversationCount: number }[] }>(await runCli(['projects', '--home', home, '--json']));
    expect(asJson.projects.find((p) => p.id === 'p_alpha')).toMatchObject({ sessionCount: 3, conversationCount: 2 });
    // index status counts conversations the same way (5 sessions: s-alpha-1b continues s-alpha-1).
    const index = json<{ keyword: { sessions: number; conversations: number } }>(await runCli(['index', 'status', '--home', home, '--json']));
    expect(index.keyword).toMatchObject({ sessions: 5, conversations: 4 });
    expect((await runCli(['index', 'status', '--home', home])).stdout).toContain('in 4 conversations (5 sessions)');
  });
});
