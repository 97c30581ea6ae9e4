/**
 * recentConversations (the browse shape's store side): one entry per logical conversation, empty
 * conversations skipped without losing a slot, oldest/newest by index order with keyset batches,
 * and a query plan that reads the project's sessions through sessions_project_idx (no full sort,
 * no per-session message counts), so the cost follows the page, not the project.
 */
import { describe, expect, test } from 'vitest';
import { appendMessage, createContinuation, createProject, createSession, recentConversations } from '../src/index.js';
import { recentSessionsBatchSql } from '../src/recent-conversations.js';
import { tempDb } from './support/temp-db.js';

const T0 = 1_700_000_000_000;

describe('recentConversations', () => {
  test.each([['newest'], ['oldest']] as const)('walks %s first across several keyset batches, skipping empty sessions', (order) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const withText: string[] = [];
    // 250 sessions (3 batches), every third one empty, several sharing a start time (id breaks ties).
    for (let i = 0; i < 250; i++) {
      const s = createSession(db, { projectId: p.id, startedAt: T0 + Math.floor(i / 2) });
      if (i % 3 !== 0) {
        appendMessage(db, s.id, { role: 'user', content: `m${i}` });
        withText.push(s.id);
      }
    }
    const all = recentConversations(db, { kind: 'project', projectId: p.id }, { limit: 500, order });
    expect(all.truncated).toBe(false);
    expect(all.conversations).toHaveLength(withText.length);
    const started = all.conversations.map((c) => db.raw.prepare('select started_at from sessions where id = ?').pluck().get(c.rootId) as number);
    const sorted = [...started].sort((a, b) => (order === 'newest' ? b - a : a - b));
    expect(started).toEqual(sorted);
    expect(new Set(all.conversations.map((c) => c.rootId)).size).toBe(withText.length);
    const page = recentConversations(db, { kind: 'project', projectId: p.id }, { limit: 7, order });
    expect(page.conversations.map((c) => c.rootId)).toEqual(all.conversations.slice(0, 7).map((c) => c.rootId));
    expect(page.truncated).toBe(true);
  });

  test('a compressed conversation is one entry listing its segments in order', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const root = createSession(db, { projectId: p.id, startedAt: T0 });
    appendMessage(db, root.id, { role: 'user', content: 'start' });
    const c1 = createContinuation(db, root.id).session;
    appendMessage(db, c1.id, { role: 'assistant', content: 'later' });
    const page = recentConversations(db, { kind: 'project', projectId: p.id }, { limit: 5, order: 'newest' });
    expect(page.conversations).toHaveLength(1);
    expect(page.conversations[0]).toMatchObject({ rootId: root.id, segments: [root.id, c1.id] });
    expect(page.conversations[0]!.first.content).toBe('start');
    expect(page.conversations[0]!.last.content).toBe('later');
  });

  test.each([
    ['newest', false],
    ['newest', true],
    ['oldest', false],
    ['oldest', true],
  ] as const)('the %s batch (cursor: %s) reads sessions_project_idx in order', (order, withCursor) => {
    const db = tempDb();
    const plan = (db.raw.prepare(`explain query plan ${recentSessionsBatchSql(order, withCursor)}`).all({ projectId: 'p', after: 'x', afterStarted: 1 }) as { detail: string }[])
      .map((r) => r.detail)
      .join(' | ');
    expect(plan).toContain('sessions_project_idx');
    if (withCursor) expect(plan).toMatch(/started_at[<>]/);
    expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
    expect(plan).not.toMatch(/messages/);
  });
});
