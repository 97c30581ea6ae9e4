import { describe, expect, it } from 'vitest';
import { groupByProject, logicalConversations, NO_PROJECT } from '../src/lib/grouping';
import type { Project, Session } from '@recall/rpc-contract';

let t = 1000;
function s(id: string, projectId: string | null, extra: Partial<Session> = {}): Session {
  t += 10;
  return {
    id,
    projectId,
    parentSessionId: null,
    lineage: 'root',
    source: 'desktop',
    title: id,
    cwd: null,
    gitRepoRoot: null,
    gitBranch: null,
    model: null,
    startedAt: t,
    endedAt: null,
    endReason: null,
    archived: false,
    hidden: false,
    createdAt: t,
    updatedAt: t,
    messageCount: 1,
    lastMessageAt: t,
    ...extra,
  };
}
function p(id: string, name: string, archived = false): Project {
  return { id, name, slug: id, description: null, color: null, icon: null, archived, createdAt: 0, updatedAt: 0, folders: [], sessionCount: 0 };
}

describe('logicalConversations', () => {
  it('folds compression continuations into their root and opens the newest', () => {
    const root = s('a', 'p1');
    const c1 = s('a2', 'p1', { parentSessionId: 'a', lineage: 'compression', title: null });
    const c2 = s('a3', 'p1', { parentSessionId: 'a2', lineage: 'compression', title: null });
    const convs = logicalConversations([c2, root, c1]);
    expect(convs).toHaveLength(1);
    expect(convs[0]!.key).toBe('a');
    expect(convs[0]!.head.id).toBe('a3');
    expect(convs[0]!.members.map((m) => m.id)).toEqual(['a', 'a2', 'a3']);
    expect(convs[0]!.title).toBe('a');
  });

  it('keeps branches and resets as their own conversations', () => {
    const root = s('a', 'p1');
    const br = s('b', 'p2', { parentSessionId: 'a', lineage: 'branch' });
    const rs = s('c', null, { parentSessionId: 'a', lineage: 'reset' });
    expect(logicalConversations([root, br, rs]).map((c) => c.key).sort()).toEqual(['a', 'b', 'c']);
  });

  it('keeps delegation children inside the parent but never as head', () => {
    const root = s('a', 'p1');
    const d = s('d', 'p1', { parentSessionId: 'a', lineage: 'delegation' });
    const convs = logicalConversations([root, d]);
    expect(convs).toHaveLength(1);
    expect(convs[0]!.head.id).toBe('a');
  });

  it('drops hidden sessions and sorts by activity', () => {
    const a = s('a', null);
    const b = s('b', null);
    const h = s('h', null, { hidden: true });
    expect(logicalConversations([a, h, b]).map((c) => c.key)).toEqual(['b', 'a']);
  });
});

describe('groupByProject', () => {
  it('groups by stored project id, keeps empty projects, orphan ids and the No project group last', () => {
    const convs = logicalConversations([s('a', 'p1', { cwd: '/work/p2' }), s('b', null), s('c', 'gone'), s('d', 'p1')]);
    const groups = groupByProject([p('p1', 'One'), p('p2', 'Two')], convs);
    expect(groups.map((g) => g.key)).toEqual(['p1', 'p2', 'gone', NO_PROJECT]);
    expect(groups[0]!.conversations.map((c) => c.key).sort()).toEqual(['a', 'd']);
    expect(groups[1]!.conversations).toEqual([]);
    expect(groups[2]!.project).toBeNull();
    expect(groups[3]!.conversations.map((c) => c.key)).toEqual(['b']);
  });
});
