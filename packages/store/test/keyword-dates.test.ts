/**
 * Date ranges in the store's SQL (keywordSearch `since`/`until`, recentConversations): the range is
 * part of every statement's gate, before its LIMIT — a better match outside the range never takes a
 * slot — on the ranked path (with and without the project token), the literal and substring
 * fallbacks, titles and browse. Real temp SQLite files.
 */
import { describe, expect, test } from 'vitest';
import { keywordSearch, type KeywordSearchOptions } from '../src/keyword-search.js';
import { appendMessages } from '../src/messages.js';
import { createProject } from '../src/projects.js';
import { recentConversations } from '../src/recent-conversations.js';
import { createSession } from '../src/sessions.js';
import { tempDb } from './support/temp-db.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);

function world() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  // Day 1: the strongest matches (term repeated); day 10: weaker ones; Q on day 10 too.
  const old = createSession(db, { projectId: p.id, title: 'backoff tuning', startedAt: T0 });
  const [oldBest] = appendMessages(db, old.id, [{ role: 'user', content: 'backoff backoff backoff jitter E_CONN_RESET (x) %', createdAt: T0 + DAY }]).messages;
  const recent = createSession(db, { projectId: p.id, title: 'deploy notes', startedAt: T0 + 9 * DAY });
  const [recentHit] = appendMessages(db, recent.id, [{ role: 'user', content: 'we talked about backoff once, see E_CONN_RESETS and (x) %', createdAt: T0 + 10 * DAY }]).messages;
  const other = createSession(db, { projectId: q.id, title: 'backoff in Q', startedAt: T0 + 9 * DAY });
  appendMessages(db, other.id, [{ role: 'user', content: 'backoff backoff in Q (x) %', createdAt: T0 + 10 * DAY }]);
  return { db, p, old, recent, oldBest: oldBest!, recentHit: recentHit! };
}

describe('keywordSearch since/until', () => {
  test.each<[string, string, KeywordSearchOptions]>([
    ['ranked', 'backoff', {}],
    ['ranked with the project token', 'backoff', { scopeTokenMinMatches: 0 }],
    ['literal', '(x) %', {}],
    ['substring', 'E_CONN_RESE', { substringFallback: true }],
  ])('%s: the range applies before LIMIT', (_name, query, extra) => {
    const { db, p, oldBest, recentHit } = world();
    const scope = { kind: 'project' as const, projectId: p.id };
    // Undated, one slot: relevance picks the old message, the literal/substring paths the newest.
    expect(keywordSearch(db, scope, query, { limit: 1, ...extra }).hits).toHaveLength(1);
    const since = keywordSearch(db, scope, query, { limit: 1, since: T0 + 5 * DAY, ...extra });
    expect(since.hits.map((h) => h.messageId)).toEqual([recentHit.id]);
    const until = keywordSearch(db, scope, query, { limit: 1, until: T0 + 5 * DAY, ...extra });
    expect(until.hits.map((h) => h.messageId)).toEqual([oldBest.id]);
    const none = keywordSearch(db, scope, query, { limit: 5, since: T0 + 20 * DAY, ...extra });
    expect(none.hits).toEqual([]);
  });

  test('a title counts only when its session has a message in the range', () => {
    const { db, p, old, recent } = world();
    const scope = { kind: 'project' as const, projectId: p.id };
    expect(keywordSearch(db, scope, 'backoff tuning').titleHits.map((t) => t.sessionId)).toEqual([old.id]);
    expect(keywordSearch(db, scope, 'backoff tuning', { since: T0 + 5 * DAY }).titleHits).toEqual([]);
    expect(keywordSearch(db, scope, 'deploy notes', { since: T0 + 5 * DAY }).titleHits.map((t) => t.sessionId)).toEqual([recent.id]);
  });
});

describe('recentConversations since/until', () => {
  test('skips conversations with no message in the range, before the page limit', () => {
    const { db, p, old, recent } = world();
    const page = (o: { since?: number; until?: number }) => recentConversations(db, { kind: 'project', projectId: p.id }, { limit: 1, order: 'newest', ...o }).conversations.map((c) => c.rootId);
    expect(page({})).toEqual([recent.id]);
    expect(page({ until: T0 + 5 * DAY })).toEqual([old.id]);
    expect(page({ since: T0 + 5 * DAY })).toEqual([recent.id]);
    expect(page({ since: T0 + 20 * DAY })).toEqual([]);
  });
});
