/**
 * Export: recall-jsonl round-trips through the importer into an empty home — the same projects,
 * session ids, lineage, hidden/archived flags, visibility, roles, text, tool fields and times,
 * compared field by field — and Markdown is a document for people (title, dates, roles, tool calls
 * and output folded, rewound text left out). The in-memory export is bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import {
  appendMessages,
  archiveProject,
  compactMessages,
  createBranch,
  createContinuation,
  createDelegation,
  createProject,
  createSession,
  deleteMessage,
  getMessages,
  listProjects,
  listSessions,
  rewindSession,
  updateSession,
} from '@recall/store';
import { afterEach, describe, expect, test } from 'vitest';
import { exportFileName, exportText, importJsonlText } from '../src/index.js';

const dirs: string[] = [];
const dbs: RecallDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-export-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  dbs.push(db);
  return db;
}

function seed(db: RecallDatabase) {
  const p = createProject(db, { name: 'Alpha 项目', description: 'the build', color: '#336699', folders: ['/work/alpha', '/work/alpha-2'] });
  const other = createProject(db, { name: 'Other' });
  const root = createSession(db, {
    projectId: p.id,
    title: 'Flaky linker',
    cwd: '/work/alpha',
    gitBranch: 'main',
    model: 'gpt-x',
    startedAt: 1_700_000_000_000,
    messages: [
      { role: 'user', content: 'The linker fails with LNK2019. 链接器失败了', createdAt: 1_700_000_000_001, externalId: 'u1' },
      { role: 'assistant', content: 'Let me look.', toolCalls: JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls ```"}' } }]), createdAt: 1_700_000_000_002 },
      { role: 'tool', content: 'a.out\n```\nlib.a', toolName: 'Bash', toolCallId: 'c1', createdAt: 1_700_000_000_003 },
      { role: 'assistant', content: 'Add zlib.', createdAt: 1_700_000_000_004 },
      { role: 'user', content: 'rewound question', createdAt: 1_700_000_000_005 },
      { role: 'user', content: 'soft-deleted secret', createdAt: 1_700_000_000_006 },
    ],
  });
  const ids = getMessages(db, root.id).map((m) => m.id);
  compactMessages(db, root.id, ids[1]!);
  deleteMessage(db, ids[5]!);
  rewindSession(db, root.id, ids[3]!);
  const cont = createContinuation(db, root.id, { note: 'hand-off note' }).session;
  const child = createDelegation(db, cont.id, { title: 'sub-agent' });
  appendMessages(db, child.id, [{ role: 'assistant', content: 'sub-agent work', createdAt: 1_700_000_000_100 }]);
  const branch = createBranch(db, root.id, { title: 'branch' });
  updateSession(db, branch.id, { archived: true });
  const elsewhere = createSession(db, { projectId: other.id, title: 'not exported', messages: [{ role: 'user', content: 'other project text' }] });
  archiveProject(db, p.id, true);
  return { p, other, root, cont, child, branch, elsewhere };
}

/** Everything a round trip must keep, per session, without the per-database message numbers. */
function picture(db: RecallDatabase, projectId: string) {
  const project = listProjects(db, { includeArchived: true }).find((p) => p.id === projectId)!;
  const sessions = listSessions(db, { projectId, includeArchived: true, includeHidden: true, limit: 1000 }).sort((a, b) => a.id.localeCompare(b.id));
  const originalIds = new Map<number, string>();
  return {
    project: { id: project.id, name: project.name, slug: project.slug, description: project.description, color: project.color, icon: project.icon, archived: project.archived, folders: project.folders.map((f) => [f.path, f.isPrimary]) },
    sessions: sessions.map((s) => ({
      id: s.id,
      projectId: s.projectId,
      parentSessionId: s.parentSessionId,
      lineage: s.lineage,
      source: s.source,
      title: s.title,
      cwd: s.cwd,
      gitRepoRoot: s.gitRepoRoot,
      gitBranch: s.gitBranch,
      model: s.model,
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      endReason: s.endReason,
      archived: s.archived,
      hidden: s.hidden,
      messages: getMessages(db, s.id, { includeHidden: true, limit: 10_000 })
        .filter((m) => m.visibility !== 'deleted')
        .map((m) => {
          originalIds.set(m.id, m.externalId ?? '');
          return { role: m.role, content: m.content, toolName: m.toolName, toolCalls: m.toolCalls, toolCallId: m.toolCallId, createdAt: m.createdAt, visibility: m.visibility, externalId: m.externalId?.startsWith('recall:') ? 'recall:*' : (m.externalId ?? 'recall:*') };
        }),
    })),
  };
}

describe('recall-jsonl export', () => {
  test('a project round-trips into an empty home field by field (sessions, lineage, visibility, text)', async () => {
    const db = tempDb();
    const { p, branch } = seed(db);
    const { text, counts } = await exportText(db, { projectId: p.id }, 'recall-jsonl');
    expect(counts).toEqual({ projects: 1, sessions: 4, messages: 11 });
    expect(text).not.toContain('soft-deleted secret');
    expect(text).not.toContain('other project text');
    const fresh = tempDb();
    const summary = await importJsonlText(fresh, text);
    expect(summary.errors).toEqual([]);
    expect(picture(fresh, p.id)).toEqual(picture(db, p.id));
    // Importing again writes nothing.
    const again = await importJsonlText(fresh, text);
    expect(again).toMatchObject({ projects: 0, sessions: 0, messages: 0, sessionsUpdated: 0, errorCount: 0 });
    // The branch's origin was exported with it, so it kept its lineage.
    expect(listSessions(fresh, { projectId: p.id, includeArchived: true }).find((s) => s.id === branch.id)?.lineage).toBe('branch');
  });

  test('one conversation exports its whole lineage (root, continuation, sub-agent) and nothing else', async () => {
    const db = tempDb();
    const { p, root, cont, child, branch } = seed(db);
    const { text, counts } = await exportText(db, { sessionId: child.id }, 'recall-jsonl');
    expect(counts.sessions).toBe(3);
    const ids = text.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; id?: string }).filter((l) => l.kind === 'session').map((l) => l.id);
    expect(ids).toEqual([root.id, cont.id, child.id]);
    expect(text).not.toContain(branch.id);
    const fresh = tempDb();
    expect((await importJsonlText(fresh, text)).errors).toEqual([]);
    const want = picture(db, p.id);
    want.sessions = want.sessions.filter((s) => s.id !== branch.id);
    expect(picture(fresh, p.id)).toEqual(want);
  });

  test('a branch exported without its origin becomes a root, and unknown scopes are refused', async () => {
    const db = tempDb();
    const { branch } = seed(db);
    const { text } = await exportText(db, { sessionId: branch.id }, 'recall-jsonl');
    const session = text.split('\n').map((l) => (l ? (JSON.parse(l) as Record<string, unknown>) : null)).find((l) => l?.kind === 'session')!;
    expect(session).not.toHaveProperty('lineage');
    expect(session).not.toHaveProperty('parent_session_id');
    expect((await importJsonlText(tempDb(), text)).errors).toEqual([]);
    await expect(exportText(db, { sessionId: 'nope' }, 'recall-jsonl')).rejects.toThrow(expect.objectContaining({ code: 'session_not_found' }));
    await expect(exportText(db, { projectId: 'p_nope' }, 'markdown')).rejects.toThrow(expect.objectContaining({ code: 'project_not_found' }));
  });

  test('the in-memory export is bounded with a stable code', async () => {
    const db = tempDb();
    const { p } = seed(db);
    await expect(exportText(db, { projectId: p.id }, 'recall-jsonl', 500)).rejects.toThrow(expect.objectContaining({ code: 'export_too_large' }));
  });
});

describe('markdown export', () => {
  test('title, dates, roles, folded tool calls and output; rewound and deleted text left out', async () => {
    const db = tempDb();
    const { p, root } = seed(db);
    const { text } = await exportText(db, { projectId: p.id }, 'markdown');
    expect(text.startsWith('# Alpha 项目\n')).toBe(true);
    expect(text).toContain('## Flaky linker\n');
    expect(text).toContain('Started 2023-11-14 22:13 UTC');
    expect(text).toContain('### User · 2023-11-14 22:13');
    expect(text).toContain('链接器失败了');
    expect(text).toContain('<details><summary>Tool call: Bash</summary>');
    expect(text).toContain('<details><summary>Tool output: Bash (15 characters)</summary>');
    // A fence longer than any backtick run inside, so the tool output cannot close it.
    expect(text).toContain('````\na.out\n```\nlib.a\n````');
    expect(text).not.toContain('rewound question');
    expect(text).not.toContain('soft-deleted secret');
    expect(text).toContain('_2 rewound or deleted message(s) not shown._');
    const one = (await exportText(db, { sessionId: root.id }, 'markdown')).text;
    expect(one.startsWith('# Flaky linker\n')).toBe(true);
    expect(await exportFileName(db, { projectId: p.id }, 'markdown')).toBe('Alpha-项目.md');
    expect(await exportFileName(db, { sessionId: root.id }, 'recall-jsonl')).toBe('Flaky-linker.jsonl');
  });
});
