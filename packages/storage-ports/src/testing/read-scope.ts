/**
 * Conformance: what the search tool reads beyond the ranked query — date ranges (keyword, head/tail,
 * recent conversations, chunks), matched terms, whole-word CJK probes — and Storage.withReadScope:
 * inside a scope every in-scope read answers as it does outside. With `enforced` (an adapter whose
 * backend limits a scoped read itself: PostgreSQL's row-level security), a deliberately unscoped
 * read inside the scope — no project filter, another project's ids, another project's scope —
 * returns nothing of another project, and a write inside the scope is refused.
 */
import { describe, expect, it } from 'vitest';
import type { Storage } from '../storage.js';
import { withReadScope } from '../storage.js';
import { codeOf, type OpenFreshStorage, useStorages } from './harness.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

interface Seeded {
  mine: { session: string; old: number; recent: number };
  other: { session: string; message: number };
}

async function seed(s: Storage): Promise<Seeded> {
  await s.projects.create({ id: 'p_mine', name: 'Mine' });
  await s.projects.create({ id: 'p_other', name: 'Other' });
  await s.sessions.create({ id: 's_mine', projectId: 'p_mine', title: 'Backoff notes', startedAt: T0 });
  await s.sessions.create({ id: 's_other', projectId: 'p_other', title: 'Backoff secrets', startedAt: T0 });
  const mine = await s.messages.append('s_mine', [
    { role: 'user', content: 'retry with backoff 番茄炒蛋', createdAt: T0 },
    { role: 'assistant', content: 'backoff jitter decided 番茄', createdAt: T0 + 10 * DAY },
  ]);
  const other = await s.messages.append('s_other', [{ role: 'user', content: 'secret backoff retry 番茄炒蛋', createdAt: T0 + 10 * DAY }]);
  return { mine: { session: 's_mine', old: mine.messages[0]!.id, recent: mine.messages[1]!.id }, other: { session: 's_other', message: other.messages[0]!.id } };
}

const ids = (hits: readonly { messageId: number }[]) => hits.map((h) => h.messageId).sort((a, b) => a - b);

/** Registers the read-scope and tool-read conformance tests. */
export function describeReadScopeConformance(open: OpenFreshStorage, options: { enforced?: boolean } = {}): void {
  const fresh = useStorages(open);

  describe('the search tool\'s reads', () => {
    it('keyword: since/until inside the ranked query, titles only with a message in the range, matched terms', async () => {
      const s = await fresh();
      const x = await seed(s);
      const scope = { kind: 'project', projectId: 'p_mine' } as const;
      const table: Array<[options: { since?: number; until?: number }, expected: number[], titles: number]> = [
        [{}, [x.mine.old, x.mine.recent], 1],
        [{ since: T0 + DAY }, [x.mine.recent], 1],
        [{ until: T0 + DAY }, [x.mine.old], 1],
        [{ since: T0 + 20 * DAY }, [], 0],
      ];
      for (const [range, expected, titles] of table) {
        const out = await s.keyword.search(scope, 'backoff', range);
        expect(ids(out.hits), JSON.stringify(range)).toEqual(expected);
        expect(out.titleHits.length, JSON.stringify(range)).toBe(titles);
      }
      const out = await s.keyword.search(scope, 'retry backoff');
      const old = out.hits.find((h) => h.messageId === x.mine.old)!;
      expect([...(old.matchedTerms ?? [])].sort()).toEqual(['backoff', 'retry']);
      expect(out.hits.find((h) => h.messageId === x.mine.recent)!.matchedTerms).toEqual(['backoff']);
      expect(out.titleHits[0]!.matchedTerms).toEqual(['backoff']);
    });

    it('keyword: partialCjk false keeps to whole CJK words', async () => {
      const s = await fresh();
      const x = await seed(s);
      const scope = { kind: 'sessions', sessionIds: ['s_mine'] } as const;
      // 茄蛋 is in no message as a word; by its single characters it matches both.
      expect(ids((await s.keyword.search(scope, '茄蛋', { titleLimit: 0 })).hits)).toEqual([x.mine.old, x.mine.recent]);
      expect(ids((await s.keyword.search(scope, '茄蛋', { titleLimit: 0, partialCjk: false })).hits)).toEqual([]);
      expect(ids((await s.keyword.search(scope, '炒蛋', { titleLimit: 0, partialCjk: false })).hits)).toEqual([x.mine.old]);
    });

    it('head/tail and recent conversations keep to a date range', async () => {
      const s = await fresh();
      const x = await seed(s);
      expect((await s.messages.segmentsHeadTail(['s_mine'], 1, 0, { since: T0 + DAY })).head.map((m) => m.id)).toEqual([x.mine.recent]);
      expect((await s.messages.segmentsHeadTail(['s_mine'], 5, 0, { until: T0 + DAY })).head.map((m) => m.id)).toEqual([x.mine.old]);
      const recent = await s.sessions.recentConversations({ kind: 'project', projectId: 'p_mine' }, { limit: 5, order: 'newest', since: T0 + DAY });
      expect(recent.conversations.map((c) => [c.first.id, c.last.id])).toEqual([[x.mine.recent, x.mine.recent]]);
      const none = await s.sessions.recentConversations({ kind: 'project', projectId: 'p_mine' }, { limit: 5, order: 'newest', since: T0 + 20 * DAY });
      expect(none.conversations).toEqual([]);
    });
  });

  describe('Storage.withReadScope', () => {
    it('in-scope reads answer inside a scope as they do outside', async () => {
      const s = await fresh();
      const x = await seed(s);
      const outside = {
        record: await s.sessions.findRecord(x.mine.session),
        message: await s.messages.find(x.mine.old),
        hits: ids((await s.keyword.search({ kind: 'project', projectId: 'p_mine' }, 'backoff')).hits),
        segments: await s.sessions.segments(x.mine.session),
        own: await s.sessions.ownHistory(x.mine.session),
      };
      const inside = await withReadScope(s, { kind: 'project', projectId: 'p_mine' }, async (scoped) => ({
        record: await scoped.sessions.findRecord(x.mine.session),
        message: await scoped.messages.find(x.mine.old),
        hits: ids((await scoped.keyword.search({ kind: 'project', projectId: 'p_mine' }, 'backoff')).hits),
        segments: await scoped.sessions.segments(x.mine.session),
        own: await scoped.sessions.ownHistory(x.mine.session),
      }));
      expect(inside).toEqual(outside);
      expect(await withReadScope(s, { kind: 'sessions', sessionIds: [x.mine.session] }, async (scoped) => (await scoped.messages.window(x.mine.session, x.mine.old, 1, 1)).messages.length)).toBe(2);
    });

    if (!options.enforced) return;

    it('an unscoped read inside a scope returns nothing of another project', async () => {
      const s = await fresh();
      const x = await seed(s);
      for (const scope of [{ kind: 'project', projectId: 'p_mine' } as const, { kind: 'sessions', sessionIds: [x.mine.session] } as const]) {
        const seen = await withReadScope(s, scope, async (scoped) => ({
          // No project filter at all: every session the backend lets through.
          sessions: (await scoped.sessions.list({ includeHidden: true, includeArchived: true })).map((x) => x.id),
          otherRecord: await scoped.sessions.findRecord(x.other.session),
          otherMessage: await scoped.messages.find(x.other.message),
          // The wrong scope asked for explicitly.
          otherProjectHits: ids((await scoped.keyword.search({ kind: 'project', projectId: 'p_other' }, 'secret backoff')).hits),
          otherSessionHits: ids((await scoped.keyword.search({ kind: 'sessions', sessionIds: [x.other.session] }, 'secret')).hits),
          otherHeadTail: (await scoped.messages.segmentsHeadTail([x.other.session], 5, 0)).head.length,
          otherRecent: (await scoped.sessions.recentConversations({ kind: 'project', projectId: 'p_other' }, { limit: 5, order: 'newest' })).conversations.length,
        }));
        expect(seen, JSON.stringify(scope)).toEqual({ sessions: [x.mine.session], otherRecord: undefined, otherMessage: undefined, otherProjectHits: [], otherSessionHits: [], otherHeadTail: 0, otherRecent: 0 });
      }
      // An empty session list sees nothing, not everything.
      expect(await withReadScope(s, { kind: 'sessions', sessionIds: [] }, async (scoped) => (await scoped.sessions.list({ includeHidden: true })).length)).toBe(0);
      // Outside the scope the other project is there (the reads above could see it).
      expect(await s.messages.find(x.other.message)).toBeDefined();
    });

    it('a write inside a read scope is refused and changes nothing', async () => {
      const s = await fresh();
      const x = await seed(s);
      expect(await codeOf(withReadScope(s, { kind: 'project', projectId: 'p_mine' }, (scoped) => scoped.messages.edit(x.mine.old, 'changed')))).toBe('storage_unsupported');
      expect((await s.messages.get(x.mine.old)).content).toBe('retry with backoff 番茄炒蛋');
    });
  });
}
