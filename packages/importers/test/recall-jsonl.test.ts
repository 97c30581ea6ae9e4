/**
 * The recall-jsonl importer over real SQLite files: counts, line errors (by line number with
 * stable codes), idempotent re-import, re-import never moving a conversation back, batch atomicity,
 * lineage, the line cap (`line_too_long`, counted in UTF-8 bytes, from a file and from text), and the
 * text entry point used by the `import.jsonl` RPC method.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createContinuation, createProject, createSession, getMessages, getSession, listProjects, listSessions, setSessionProject } from '@recall/store';
import { afterEach, describe, expect, it } from 'vitest';
import { importJsonlFile, importJsonlText, MAX_LINE_BYTES, parseLine } from '../src/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const dirs: string[] = [];
const dbs: RecallDatabase[] = [];

function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-import-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  dbs.push(db);
  return db;
}

function counts(db: RecallDatabase): { projects: number; sessions: number; messages: number } {
  const one = (sql: string) => db.raw.prepare(sql).pluck().get() as number;
  return { projects: one('select count(*) from projects'), sessions: one('select count(*) from sessions'), messages: one('select count(*) from messages') };
}

function findSessionIds(db: RecallDatabase): string[] {
  return db.raw.prepare('select id from sessions order by id').pluck().all() as string[];
}

afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('importJsonlFile', () => {
  it('imports projects, sessions and messages with their ids, projects and timestamps', async () => {
    const db = tempDb();
    const summary = await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    expect(summary).toEqual({ lines: 12, projects: 2, sessions: 4, messages: 6, sessionsUpdated: 0, skipped: 0, errors: [], errorCount: 0 });
    expect(listProjects(db).map((p) => [p.id, p.name, p.sessionCount])).toEqual([
      ['p_alpha', 'Alpha', 2],
      ['p_beta', 'Beta', 1],
    ]);
    expect(listProjects(db)[0]!.folders).toEqual([{ path: '/work/alpha', isPrimary: true }]);
    const s = getSession(db, 's-alpha-1');
    expect(s).toMatchObject({ projectId: 'p_alpha', source: 'import', title: 'Alpha: flaky linker', cwd: '/work/alpha', startedAt: Date.parse('2024-03-01T10:00:00Z') });
    expect(getSession(db, 's-loose').projectId).toBeNull();
    const messages = getMessages(db, 's-alpha-2');
    expect(messages.map((m) => [m.externalId, m.role, m.createdAt])).toEqual([
      ['a2-1', 'user', Date.parse('2024-03-02T09:00:00Z')],
      ['a2-2', 'assistant', Date.parse('2024-03-02T09:00:30Z')],
    ]);
    expect(messages[0]!.content).toBe('请帮我写本周的周报，重点是构建系统的迁移进度。');
  });

  it('re-importing the same file writes nothing', async () => {
    const db = tempDb();
    await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    const before = counts(db);
    const updatedAt = db.raw.prepare('select id, updated_at from sessions order by id').all();
    const again = await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    expect(again).toEqual({ lines: 12, projects: 0, sessions: 0, messages: 0, sessionsUpdated: 0, skipped: 12, errors: [], errorCount: 0 });
    expect(counts(db)).toEqual(before);
    expect(db.raw.prepare('select id, updated_at from sessions order by id').all()).toEqual(updatedAt);
  });

  it('reports malformed, unknown and refused lines by line number with stable codes, and imports the rest', async () => {
    const db = tempDb();
    const summary = await importJsonlFile(db, join(FIXTURES, 'broken.jsonl'));
    expect(summary.errors.map((e) => [e.line, e.code])).toEqual([
      [2, 'invalid_json'],
      [3, 'unknown_kind'],
      [6, 'invalid_line'],
      [7, 'session_not_found'],
      [8, 'project_not_found'],
      [10, 'invalid_json'],
      [11, 'invalid_line'],
      [12, 'invalid_line'],
    ]);
    expect(summary).toMatchObject({ lines: 12, projects: 1, sessions: 1, messages: 2, errorCount: 8 });
    expect(summary.errors[1]!.message).toContain('"folder"');
    expect(summary.errors[2]!.message).toContain('role');
    expect(summary.errors[7]!.message).toContain('extra');
    expect(getMessages(db, 's-gamma').map((m) => m.externalId)).toEqual(['g-2', 'g-4']);
    expect(counts(db)).toEqual({ projects: 1, sessions: 1, messages: 2 });
    // The same errors again, and nothing new.
    const again = await importJsonlFile(db, join(FIXTURES, 'broken.jsonl'));
    expect(again.errors).toEqual(summary.errors);
    expect(again).toMatchObject({ projects: 0, sessions: 0, messages: 0, skipped: 4 });
  });

  it('never moves an existing conversation back and never clears its project on re-import', async () => {
    const db = tempDb();
    await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    setSessionProject(db, 's-alpha-1', 'p_beta');
    setSessionProject(db, 's-beta-1', null);
    const again = await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    expect(again.sessionsUpdated).toBe(0);
    expect(getSession(db, 's-alpha-1').projectId).toBe('p_beta');
    expect(getSession(db, 's-beta-1').projectId).toBeNull();
  });

  it('updates only differing session fields, keeping the stored project', async () => {
    const db = tempDb();
    await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    setSessionProject(db, 's-alpha-2', 'p_beta');
    const text = readFileSync(join(FIXTURES, 'small.jsonl'), 'utf8').replace('"title":"Alpha: 周报"', '"title":"Alpha: weekly report"');
    const summary = await importJsonlText(db, text);
    expect(summary).toMatchObject({ sessions: 0, sessionsUpdated: 1, messages: 0, errorCount: 0 });
    expect(getSession(db, 's-alpha-2')).toMatchObject({ title: 'Alpha: weekly report', projectId: 'p_beta' });
  });
});

describe('line cap', () => {
  const session = JSON.stringify({ kind: 'session', id: 's-cap' });
  const message = (id: string, content: string) => JSON.stringify({ kind: 'message', session_id: 's-cap', external_id: id, role: 'user', content });

  it('a file line over MAX_LINE_BYTES is line_too_long with its line number and bytes; CRLF, a BOM and the lines after it are read', async () => {
    const db = tempDb();
    const dir = mkdtempSync(join(tmpdir(), 'recall-cap-'));
    dirs.push(dir);
    const file = join(dir, 'cap.jsonl');
    const huge = message('m-huge', 'x'.repeat(MAX_LINE_BYTES));
    writeFileSync(file, `\ufeff${session}\r\n${message('m1', 'before')}\r\n${huge}\r\n\r\n${message('m2', 'after')}`);
    const summary = await importJsonlFile(db, file);
    expect(summary).toMatchObject({ lines: 4, sessions: 1, messages: 2, errorCount: 1 });
    expect(summary.errors).toEqual([{ line: 3, code: 'line_too_long', message: `Line is ${huge.length} bytes, over the 8 MiB limit (${MAX_LINE_BYTES} bytes); skipped.` }]);
    expect(getMessages(db, 's-cap').map((m) => m.content)).toEqual(['before', 'after']);
  });

  it('text lines are measured in UTF-8 bytes, not characters', () => {
    const cjk = message('m-cjk', '周'.repeat(Math.ceil(MAX_LINE_BYTES / 3))); // fewer characters than the cap, more bytes
    expect(cjk.length).toBeLessThan(MAX_LINE_BYTES);
    expect(parseLine(cjk, 7)).toMatchObject({ ok: false, error: { line: 7, code: 'line_too_long', message: expect.stringContaining(`${Buffer.byteLength(cjk)} bytes`) } });
    expect(parseLine(message('m-ok', '周'.repeat(100_000)), 8)).toMatchObject({ ok: true });
  });
});

describe('importJsonlText', () => {
  it('accepts CRLF line ends, a BOM, epoch-ms timestamps and tool calls given as JSON values', async () => {
    const db = tempDb();
    const text = [
      '\ufeff{"kind":"session","id":"s1","title":"t"}',
      '{"kind":"message","session_id":"s1","external_id":"m1","role":"assistant","content":"calling","created_at":1700000000000,"tool_calls":[{"id":"c1","name":"ls"}]}',
      '{"kind":"message","session_id":"s1","external_id":"m2","role":"tool","content":"a b c","tool_name":"ls","tool_call_id":"c1","created_at":"2023-11-14T22:13:21+01:00"}',
      '',
    ].join('\r\n');
    const summary = await importJsonlText(db, text);
    expect(summary).toMatchObject({ lines: 3, sessions: 1, messages: 2, errorCount: 0 });
    const [m1, m2] = getMessages(db, 's1');
    expect(m1).toMatchObject({ createdAt: 1700000000000, toolCalls: '[{"id":"c1","name":"ls"}]' });
    expect(m2).toMatchObject({ role: 'tool', toolName: 'ls', toolCallId: 'c1', createdAt: Date.parse('2023-11-14T21:13:21Z') });
    expect(getSession(db, 's1')).toMatchObject({ projectId: null, source: 'import' });
  });

  it('imports lineage: a compression continuation inherits its parent project and moves with it', async () => {
    const db = tempDb();
    const text = [
      '{"kind":"project","id":"p_one","name":"One"}',
      '{"kind":"project","id":"p_two","name":"Two"}',
      '{"kind":"session","id":"root","project_id":"p_one"}',
      '{"kind":"session","id":"cont","parent_session_id":"root","lineage":"compression"}',
      '{"kind":"session","id":"bad-cont","parent_session_id":"root","lineage":"compression","project_id":"p_two"}',
      '{"kind":"session","id":"bad-root","parent_session_id":"root"}',
    ].join('\n');
    const summary = await importJsonlText(db, text);
    expect(summary.errors.map((e) => [e.line, e.code])).toEqual([
      [5, 'invalid_lineage'],
      [6, 'invalid_lineage'],
    ]);
    expect(getSession(db, 'cont').projectId).toBe('p_one');
    setSessionProject(db, 'root', 'p_two');
    expect(getSession(db, 'cont').projectId).toBe('p_two');
  });

  // A session compresses once (store: createSession refuses a second compression child), so a file
  // cannot fork a conversation into two live ends, whether the first continuation came from the
  // same file, an earlier import or the desktop's /compress.
  it.each([
    ['an earlier line of the same file', (_db: RecallDatabase) => ['{"kind":"session","id":"cont","parent_session_id":"root","lineage":"compression"}'], 'cont'],
    [
      'the desktop (session.compress) before the import',
      (db: RecallDatabase) => {
        createContinuation(db, 'root', { id: 'desk-cont' });
        return [];
      },
      'desk-cont',
    ],
  ] as const)('refuses a second compression child of a session compressed by %s, by line, writing none of it', async (_how, first, continuationId) => {
    const db = tempDb();
    createProject(db, { id: 'p_one', name: 'One' });
    createSession(db, { id: 'root', projectId: 'p_one', messages: [{ role: 'user', content: 'before compaction' }] });
    const lines = [
      ...first(db),
      '{"kind":"session","id":"fork","parent_session_id":"root","lineage":"compression","title":"second live end"}',
      '{"kind":"message","session_id":"fork","external_id":"f1","role":"user","content":"written into the fork"}',
      '{"kind":"session","id":"branch","parent_session_id":"root","lineage":"branch"}',
    ];
    const dir = mkdtempSync(join(tmpdir(), 'recall-import-file-'));
    dirs.push(dir);
    const file = join(dir, 'fork.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const summary = await importJsonlFile(db, file);
    const forkLine = lines.findIndex((l) => l.includes('"id":"fork"')) + 1;
    expect(summary.errors.map((e) => [e.line, e.code])).toEqual([
      [forkLine, 'session_already_compressed'],
      [forkLine + 1, 'session_not_found'],
    ]);
    expect(summary.errors[0]!.message).toContain(`continues in "${continuationId}"`);
    expect(findSessionIds(db)).not.toContain('fork');
    expect(db.raw.prepare("select count(*) from messages where content = 'written into the fork'").pluck().get()).toBe(0);
    // The refused line touched nothing else: root keeps its one continuation; the branch after it was imported.
    expect(db.raw.prepare("select id from sessions where parent_session_id = 'root' and lineage = 'compression'").pluck().all()).toEqual([continuationId]);
    expect(getSession(db, 'branch').lineage).toBe('branch');
    // Re-importing reports the same refusal and still writes nothing.
    const rows = db.raw.prepare('select * from sessions order by id').all();
    const again = await importJsonlFile(db, file);
    expect(again.errors).toEqual(summary.errors);
    expect(db.raw.prepare('select * from sessions order by id').all()).toEqual(rows);
  });

  it('commits whole batches: a failure between batches keeps earlier batches and nothing of the failed one', async () => {
    const db = tempDb();
    const lines = ['{"kind":"session","id":"s1"}'];
    for (let i = 1; i <= 9; i++) lines.push(JSON.stringify({ kind: 'message', session_id: 's1', external_id: `m${i}`, role: 'user', content: `message ${i}` }));
    let batches = 0;
    await expect(
      importJsonlText(db, lines.join('\n'), {
        batchLines: 4,
        onProgress: () => {
          batches++;
          if (batches === 2) throw new Error('simulated crash after the second batch');
        },
      }),
    ).rejects.toThrow('simulated crash');
    // Batches 1 and 2 (lines 1-8: the session + 7 messages) committed before the "crash"; line 9-10 never ran.
    expect(getMessages(db, 's1').map((m) => m.externalId)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    const resumed = await importJsonlText(db, lines.join('\n'), { batchLines: 4 });
    expect(resumed).toMatchObject({ messages: 2, skipped: 8 });
  });

  it('keeps only the first 1000 line errors but counts them all', async () => {
    const db = tempDb();
    const summary = await importJsonlText(db, Array.from({ length: 1500 }, () => 'nope').join('\n'));
    expect(summary.errorCount).toBe(1500);
    expect(summary.errors).toHaveLength(1000);
    expect(summary.errors[999]!.line).toBe(1000);
  });
});

describe('parseLine', () => {
  it('validates each kind strictly and never throws', () => {
    expect(parseLine('{"kind":"project","id":"p_x","name":"X"}', 1)).toMatchObject({ ok: true });
    expect(parseLine('{"kind":"project","id":"x","name":"X"}', 1)).toMatchObject({ ok: false, error: { code: 'invalid_line' } });
    expect(parseLine('{"kind":"message","session_id":"s","role":"user","content":"no external id"}', 4)).toMatchObject({
      ok: false,
      error: { line: 4, code: 'invalid_line' },
    });
    expect(parseLine('{"kind":"session","id":"s","started_at":"yesterday"}', 2)).toMatchObject({ ok: false, error: { code: 'invalid_line' } });
    expect(parseLine('null', 3)).toMatchObject({ ok: false, error: { code: 'invalid_json' } });
    expect(parseLine('{"id":"s"}', 3)).toMatchObject({ ok: false, error: { code: 'unknown_kind' } });
  });

  it('keeps listSessions consistent after import (sanity)', async () => {
    const db = tempDb();
    await importJsonlFile(db, join(FIXTURES, 'small.jsonl'));
    expect(listSessions(db, { projectId: null }).map((s) => s.id)).toEqual(['s-loose']);
  });
});
