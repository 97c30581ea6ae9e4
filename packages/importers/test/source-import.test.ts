/**
 * The Claude Code, Codex and Hermes importers on the committed fixtures (real SQLite files in temp
 * folders): sessions, lineage kinds, visibility, metadata and roles as mapped; project mapping
 * (explicit, per folder, none); idempotency (a re-run imports nothing, a grown transcript only its
 * new lines, a Hermes compaction after the import updates visibility); the truncated last line and
 * the non-UTF-8 byte; a 6 MiB tool output clipped, not refused; a line over the 8 MiB line cap
 * refused as `line_too_long` with the lines around it imported; the Hermes db opened read-only and
 * left byte-identical; the dry run writes nothing. (Searching the imported history goes through
 * @recall/search-tool, which this package does not depend on: gateway-rpc's import-search.test.ts.)
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDatabases } from '@recall/config/temp-databases';
import { MAX_MESSAGE_CHARS } from '@recall/rpc-contract';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createProject, findSession, getMessages, listConversations, listProjects } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { HermesSchemaError, ImporterError, importHermes, importTranscripts, MAX_LINE_BYTES, transcriptFiles, type ProjectMapping } from '../src/index.js';
import { bigToolOutputFile, CC_ALPHA, CC_BETA, ccLine, CODEX_NEW, CODEX_OLD, copyFixture, hermesDb, hermesExec } from '@recall/config/source-fixtures';

const { tempDir, tempDb: recallDb } = tempDatabases((path) => openDatabase(path), 'recall-import-src-');

const runCC = (db: RecallDatabase, path: string, mapping: ProjectMapping = { kind: 'per-folder' }, dryRun = false) =>
  importTranscripts(db, 'claude-code', transcriptFiles('claude-code', path), { mapping, dryRun });
const runCodex = (db: RecallDatabase, path: string, mapping: ProjectMapping = { kind: 'none' }) => importTranscripts(db, 'codex', transcriptFiles('codex', path), { mapping });

function all(db: RecallDatabase, sessionId: string) {
  return getMessages(db, sessionId, { includeHidden: true, limit: 10_000 });
}

describe('claude-code', () => {
  test('sessions, lineage, roles, metadata and line errors of the fixture', async () => {
    const db = recallDb();
    const dir = copyFixture('claude-code', tempDir());
    const summary = await runCC(db, dir);
    expect(summary.sessions).toBe(5);
    expect(summary.projectsCreated).toBe(2);
    // The truncated last line is the only error, reported by file and line.
    expect(summary.errors).toEqual([expect.objectContaining({ code: 'invalid_json', line: 15, file: expect.stringContaining(`${CC_ALPHA}.jsonl`) })]);

    const root = findSession(db, CC_ALPHA)!;
    expect(root).toMatchObject({ lineage: 'root', source: 'claude-code', title: 'Fixing the flaky LNK2019 linker error', cwd: '/work/alpha', gitBranch: 'feature/linker', model: 'claude-sonnet-4-5', endReason: 'compression', hidden: false });
    const alphaProject = listProjects(db).find((p) => p.folders.some((f) => f.path === '/work/alpha'))!;
    expect(root.projectId).toBe(alphaProject.id);
    expect(alphaProject.id).not.toContain('/'); // the path is folder metadata, never the id

    const lineage = Object.fromEntries(
      [`${CC_ALPHA}:c1`, `${CC_ALPHA}:sidechain`, `${CC_ALPHA}:agent-a7f3c9`, CC_BETA].map((id) => {
        const s = findSession(db, id)!;
        return [id, { lineage: s.lineage, parent: s.parentSessionId, hidden: s.hidden, sameProject: s.projectId === root.projectId }];
      }),
    );
    expect(lineage).toEqual({
      [`${CC_ALPHA}:c1`]: { lineage: 'compression', parent: CC_ALPHA, hidden: false, sameProject: true },
      [`${CC_ALPHA}:sidechain`]: { lineage: 'delegation', parent: CC_ALPHA, hidden: true, sameProject: true },
      [`${CC_ALPHA}:agent-a7f3c9`]: { lineage: 'delegation', parent: CC_ALPHA, hidden: true, sameProject: true },
      [CC_BETA]: { lineage: 'root', parent: null, hidden: false, sameProject: false },
    });

    const before = all(db, CC_ALPHA).map((m) => [m.externalId, m.role]);
    expect(before).toEqual([
      ['u-a-001', 'user'],
      ['u-a-002', 'assistant'],
      ['u-a-003#1', 'tool'],
      ['u-a-004', 'assistant'],
      ['u-a-005', 'system'],
    ]);
    const call = all(db, CC_ALPHA)[1]!;
    expect(call.content).toContain('grep -n zstd CMakeLists.txt');
    expect(call.content).not.toContain('secret reasoning');
    expect(JSON.parse(call.toolCalls!)).toEqual([{ id: 'toolu_01', type: 'function', function: { name: 'Bash', arguments: '{"command":"grep -n zstd CMakeLists.txt"}' } }]);
    expect(all(db, CC_ALPHA)[2]).toMatchObject({ toolCallId: 'toolu_01', content: '42: target_link_libraries(app PRIVATE zlib)' });

    const after = all(db, `${CC_ALPHA}:c1`);
    expect(after.map((m) => [m.externalId, m.role])).toEqual([
      ['u-a-006', 'system'],
      ['u-a-007', 'user'],
      ['u-a-008', 'assistant'],
      ['u-a-009', 'user'],
    ]);
    // The non-UTF-8 byte became U+FFFD in that message only.
    expect(after[3]!.content).toBe('caf\uFFFD menu encoding bug');
    expect(all(db, `${CC_ALPHA}:agent-a7f3c9`).map((m) => m.content)).toContain('Subagent review: the CMake change looks right.');
  });

  test('a re-run imports nothing; a grown transcript imports only its new lines', async () => {
    const db = recallDb();
    const dir = copyFixture('claude-code', tempDir());
    const first = await runCC(db, dir);
    expect(first.messages).toBe(15);
    const again = await runCC(db, dir);
    expect(again).toMatchObject({ sessions: 0, sessionsUpdated: 0, messages: 0, projectsCreated: 0, skipped: 15 });
    const file = join(dir, '-work-beta', `${CC_BETA}.jsonl`);
    appendFileSync(file, `${ccLine(CC_BETA, 'u-b-003', 'user', 'And for the smoked variant?')}\n${ccLine(CC_BETA, 'u-b-004', 'assistant', 'Half the amount.')}\n`);
    const grown = await runCC(db, dir);
    expect(grown).toMatchObject({ sessions: 0, messages: 2 });
    expect(all(db, CC_BETA).map((m) => m.externalId)).toEqual(['u-b-001', 'u-b-002', 'u-b-003', 'u-b-004']);
  });

  test.each([
    ['none', { kind: 'none' } as ProjectMapping, null],
    ['explicit project', { kind: 'project', projectId: 'p_target' } as ProjectMapping, 'p_target'],
  ])('project mapping: %s', async (_name: string, mapping: ProjectMapping, expected: string | null) => {
    const db = recallDb();
    createProject(db, { id: 'p_target', name: 'Target' });
    const dir = copyFixture('claude-code', tempDir());
    await runCC(db, dir, mapping);
    for (const id of [CC_ALPHA, `${CC_ALPHA}:c1`, `${CC_ALPHA}:agent-a7f3c9`, CC_BETA]) expect(findSession(db, id)!.projectId).toBe(expected);
    expect(listProjects(db).map((p) => p.id)).toEqual(['p_target']);
  });

  test('an existing session is never moved by a re-import', async () => {
    const db = recallDb();
    createProject(db, { id: 'p_target', name: 'Target' });
    const dir = copyFixture('claude-code', tempDir());
    await runCC(db, dir, { kind: 'none' });
    await runCC(db, dir, { kind: 'project', projectId: 'p_target' });
    expect(findSession(db, CC_ALPHA)!.projectId).toBeNull();
  });

  test('a 6 MiB tool output (under the line cap) is imported clipped to what a message holds', async () => {
    const db = recallDb();
    const { path, sessionId } = bigToolOutputFile(tempDir(), 6 * 1024 * 1024);
    const summary = await runCC(db, path, { kind: 'none' });
    expect(summary.errorCount).toBe(0);
    expect(summary.messages).toBe(3);
    const tool = all(db, sessionId).find((m) => m.role === 'tool')!;
    expect(tool.content.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(tool.content).toMatch(/characters not imported\]$/);
  });

  test('a line over MAX_LINE_BYTES is refused as line_too_long (line, bytes); the lines around it are imported', async () => {
    const db = recallDb();
    const { path, sessionId } = bigToolOutputFile(tempDir(), MAX_LINE_BYTES + 1024);
    const summary = await runCC(db, path, { kind: 'none' });
    expect(summary.errors).toEqual([expect.objectContaining({ line: 2, code: 'line_too_long', message: expect.stringMatching(/^Line is \d+ bytes, over the 8 MiB limit/) })]);
    expect(all(db, sessionId).map((m) => m.externalId)).toEqual(['u-big-1', 'u-big-3']);
  });

  test('dry run: per-project counts, nothing written', async () => {
    const db = recallDb();
    const dir = copyFixture('claude-code', tempDir());
    const summary = await runCC(db, dir, { kind: 'per-folder' }, true);
    expect(summary).toMatchObject({ dryRun: true, sessions: 5, messages: 15, projectsCreated: 2 });
    expect(summary.perProject.map((p) => [p.project, p.sessions, p.messages])).toEqual([
      ['new:/work/alpha', 4, 13],
      ['new:/work/beta', 1, 2],
    ]);
    expect(listProjects(db)).toEqual([]);
    expect(findSession(db, CC_ALPHA)).toBeUndefined();
  });
});

describe('summary counts as the project lists count (issue 20.10)', () => {
  test.each([
    ['a real run', false],
    ['a dry run', true],
  ])('%s: conversations per project, hidden subagent sessions apart, nothing "updated" on a first import', async (_how, dryRun) => {
    const db = recallDb();
    const dir = copyFixture('claude-code', tempDir());
    const summary = await runCC(db, dir, { kind: 'per-folder' }, dryRun);
    // The root, its compression continuation and the subagent sessions are 1 conversation in alpha.
    expect(summary).toMatchObject({ sessions: 5, conversations: 2, sessionsUpdated: 0 });
    expect(summary.hiddenSessions).toBeGreaterThan(0);
    expect(summary.hiddenMessages).toBeGreaterThan(0);
    expect(summary.perProject.map((p) => [p.name, p.conversations, p.sessions - p.conversations - p.hiddenSessions])).toEqual([
      ['alpha', 1, 1],
      ['beta', 1, 0],
    ]);
    expect(summary.perProject.reduce((n, p) => n + p.hiddenSessions, 0)).toBe(summary.hiddenSessions);
    if (!dryRun) {
      // The same numbers the sidebar and `recall projects` show.
      for (const p of summary.perProject) expect(listConversations(db, { projectId: p.project }).total, p.name ?? '').toBe(p.conversations);
      const again = await runCC(db, dir);
      expect(again).toMatchObject({ sessions: 0, conversations: 0, hiddenSessions: 0, hiddenMessages: 0, sessionsUpdated: 0 });
    }
  });

  test('a later title for a session an earlier import created counts as an update', async () => {
    const db = recallDb();
    const dir = copyFixture('claude-code', tempDir());
    await runCC(db, dir);
    const file = join(dir, '-work-beta', `${CC_BETA}.jsonl`);
    appendFileSync(file, `${JSON.stringify({ type: 'summary', summary: 'Paprika for the beta recipe', leafUuid: 'u-b-002' })}\n`);
    const grown = await runCC(db, dir);
    expect(findSession(db, CC_BETA)?.title).toBe('Paprika for the beta recipe');
    expect(grown).toMatchObject({ sessions: 0, sessionsUpdated: 1 });
  });
});

describe('codex', () => {
  test('session meta, roles, tool calls and outputs, compaction, and the earlier layout', async () => {
    const db = recallDb();
    const dir = copyFixture('codex', tempDir());
    const summary = await runCodex(db, dir);
    expect(summary.errorCount).toBe(0);
    expect(findSession(db, CODEX_NEW)).toMatchObject({ lineage: 'root', source: 'codex', cwd: '/work/gamma', gitBranch: 'main', model: 'gpt-5-codex', endReason: 'compression', projectId: null });
    expect(findSession(db, `${CODEX_NEW}:c1`)).toMatchObject({ lineage: 'compression', parentSessionId: CODEX_NEW });
    expect(all(db, CODEX_NEW).map((m) => [m.role, m.content.slice(0, 30)])).toEqual([
      ['system', '<environment_context>\n  <cwd>/'],
      ['user', 'Why does the gamma service tim'],
      ['assistant', 'shell {"command":["rg","-n","r'],
      ['tool', 'config/gamma.toml:3:readiness_'],
      ['assistant', 'readiness_timeout is 2 seconds'],
    ]);
    const [, , call, output] = all(db, CODEX_NEW);
    expect(call).toMatchObject({ toolName: 'shell' });
    expect(output).toMatchObject({ toolCallId: 'call_g1' });
    expect(all(db, `${CODEX_NEW}:c1`).map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(all(db, CODEX_OLD).map((m) => m.content)).toEqual(['Legacy rollout question about delta queues', 'Delta queues drain every 5 seconds.']);
    expect(findSession(db, CODEX_OLD)!.gitBranch).toBe('legacy');
    expect((await runCodex(db, dir)).messages).toBe(0);
  });
});

describe('hermes', () => {
  test('lineage kinds from parents and model_config markers, visibility from active/compacted, hidden and archived', async () => {
    const db = recallDb();
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'));
    const digest = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const before = digest();
    createProject(db, { id: 'p_delta', name: 'Delta' });
    const summary = await importHermes(db, path, { mapping: { kind: 'project', projectId: 'p_delta' } });
    expect(summary).toMatchObject({ sessions: 6, messages: 14, errorCount: 0 });
    expect(digest()).toBe(before); // opened read-only, never migrated

    const kinds = Object.fromEntries(
      ['20250901_090000_aa11', '20250901_100000_bb22', '20250901_110000_cc33', '20250901_120000_dd44', '20250901_100500_ee55', '20250902_080000_ff66'].map((id) => {
        const s = findSession(db, id)!;
        return [id, [s.lineage, s.parentSessionId, s.hidden, s.archived, s.projectId]];
      }),
    );
    expect(kinds).toEqual({
      '20250901_090000_aa11': ['root', null, false, false, 'p_delta'],
      '20250901_100000_bb22': ['compression', '20250901_090000_aa11', false, false, 'p_delta'],
      '20250901_110000_cc33': ['branch', '20250901_090000_aa11', false, false, 'p_delta'],
      '20250901_120000_dd44': ['reset', '20250901_100000_bb22', false, false, 'p_delta'],
      '20250901_100500_ee55': ['delegation', '20250901_100000_bb22', true, false, 'p_delta'],
      '20250902_080000_ff66': ['root', null, false, true, 'p_delta'],
    });
    expect(findSession(db, '20250901_090000_aa11')).toMatchObject({ title: 'Queue retry design', cwd: '/work/delta/api', gitRepoRoot: '/work/delta', model: 'hermes-4-70b', endReason: 'compression' });
    expect(all(db, '20250901_090000_aa11').map((m) => m.visibility)).toEqual(['compacted', 'compacted', 'rewound', 'rewound']);
    const cont = all(db, '20250901_100000_bb22');
    expect(cont.map((m) => [m.role, m.visibility])).toEqual([
      ['system', 'live'],
      ['user', 'live'],
      ['assistant', 'live'],
      ['tool', 'live'],
    ]);
    expect(cont[3]).toMatchObject({ toolCallId: 'call_h1', toolName: 'search_files' });
    // That search then finds the compacted history and never the rewound answer is checked where
    // the search tool is composed: gateway-rpc's test/import-search.test.ts.
  });

  test('re-import: nothing new; a later Hermes compaction updates visibility; new rows are appended', async () => {
    const db = recallDb();
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'));
    await importHermes(db, path, { mapping: { kind: 'none' } });
    expect((await importHermes(db, path, { mapping: { kind: 'none' } })).messages).toBe(0);
    hermesExec(
      path,
      `update messages set compacted = 1, active = 0 where session_id = '20250901_100000_bb22' and role = 'user';
       insert into messages (session_id, role, content, timestamp) values ('20250901_100000_bb22', 'assistant', 'Retention is 14 days.', 1756720900.0);`,
    );
    const again = await importHermes(db, path, { mapping: { kind: 'none' } });
    expect(again.messages).toBe(1);
    expect(all(db, '20250901_100000_bb22').map((m) => m.visibility)).toEqual(['live', 'compacted', 'live', 'live', 'live']);
  });

  // Hermes marks a child of a session that ended in compression as its continuation; a second such
  // child would fork the conversation, so the store refuses it (a dry run predicts the same).
  test.each([false, true])('a second compression child of one session is refused with session_already_compressed (dry run: %s)', async (dryRun) => {
    const db = recallDb();
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'));
    hermesExec(
      path,
      `insert into sessions (id, source, model, parent_session_id, started_at, title) values ('20250901_130000_fork', 'cli', 'hermes-4-70b', '20250901_090000_aa11', 1756731600.0, 'second continuation');
       insert into messages (session_id, role, content, timestamp) values ('20250901_130000_fork', 'user', 'a fork of the compressed conversation', 1756731601.0);`,
    );
    const summary = await importHermes(db, path, { mapping: { kind: 'none' }, dryRun });
    expect(summary.errors.map((e) => e.code)).toEqual(['session_already_compressed', 'session_not_found']);
    expect(summary.errors[0]!.message).toContain('"20250901_090000_aa11" was already compressed and continues in "20250901_100000_bb22"');
    expect(summary).toMatchObject({ sessions: 6, messages: 14 });
    if (dryRun) return;
    expect(findSession(db, '20250901_130000_fork')).toBeUndefined();
    expect(db.raw.prepare("select count(*) from messages where content like 'a fork%'").pluck().get()).toBe(0);
    expect(findSession(db, '20250901_100000_bb22')).toMatchObject({ lineage: 'compression', parentSessionId: '20250901_090000_aa11' });
  });

  test('a database without the expected tables is a clear error', async () => {
    const db = recallDb();
    const path = hermesDb(join(tempDir(), 'other', 'state.db'), 'create table notes (id integer primary key, body text);');
    const error = await importHermes(db, path, { mapping: { kind: 'none' } }).catch((e: unknown) => e);
    // The store's reader finds it; the importer's own class (an ImporterError, a domain error on the wire) is thrown, same code and text as before.
    expect(error).toBeInstanceOf(HermesSchemaError);
    expect(error).toBeInstanceOf(ImporterError);
    expect(error).toMatchObject({ code: 'hermes_schema_unsupported', details: { path }, message: `${path} is not a Hermes state.db this importer can read: no "sessions" table` });
    expect((error as Error).cause).toMatchObject({ code: 'hermes_schema_unsupported', details: { table: 'sessions' } });
  });
});

describe('line errors', () => {
  test('a refused line is reported and every other line imported', async () => {
    const db = recallDb();
    const dir = tempDir();
    const file = join(dir, '-work-x', 'aaaaaaaa-0000-4000-8000-000000000001.jsonl');
    const id = 'aaaaaaaa-0000-4000-8000-000000000001';
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, '-work-x'));
    writeFileSync(
      file,
      [
        ccLine(id, 'u1', 'user', 'first'),
        '{"type":"user","uuid":"u2"}',
        'not json at all',
        '[1,2]',
        ccLine(id, 'u3', 'assistant', 'third'),
      ].join('\n') + '\n',
    );
    const summary = await runCC(db, dir, { kind: 'none' });
    expect(summary.errors.map((e) => [e.line, e.code])).toEqual([
      [2, 'invalid_record'],
      [3, 'invalid_json'],
      [4, 'invalid_json'],
    ]);
    expect(all(db, id).map((m) => m.content)).toEqual(['first', 'third']);
  });
});
