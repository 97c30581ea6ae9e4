/**
 * `since` / `until` on session_search: the bound grammar (table), typed error results for bad
 * bounds, and as a fast-check property over random worlds of two projects with messages spread over
 * time: no result (anchor, other id, browse entry) lies outside the range or in another project, in
 * keyword discover, in hybrid/semantic discover with a semantic source that ignores both the scope
 * and the dates, and in browse. Real SQLite files throughout.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession, findMessage } from '@recall/store';
import { createSessionSearchTool, type SemanticHit, type SemanticSource } from '../src/index.js';
import { resolveDateRange } from '../src/date-range.js';
import { tempDb } from './support/temp-db.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const DAY = 86_400_000;

describe('date bounds', () => {
  test.each([
    [{ since: '7d' }, { since: NOW - 7 * DAY }],
    [{ since: '24h' }, { since: NOW - DAY }],
    [{ since: '30m' }, { since: NOW - 30 * 60_000 }],
    [{ since: '2w' }, { since: NOW - 14 * DAY }],
    [{ since: '2026-11-30' }, { since: Date.UTC(2026, 10, 30) }],
    [{ until: '2026-11-30' }, { until: Date.UTC(2026, 11, 1) }],
    [{ since: '2026-11-30T14:00Z' }, { since: Date.UTC(2026, 10, 30, 14) }],
    [{ since: '2026-11-30T14:00' }, { since: Date.UTC(2026, 10, 30, 14) }],
    [{ since: '2026-11-30T14:00:00+02:00' }, { since: Date.UTC(2026, 10, 30, 12) }],
    [{ since: '2026-11-29', until: '2026-11-29' }, { since: Date.UTC(2026, 10, 29), until: Date.UTC(2026, 10, 30) }],
    [{}, {}],
  ])('%j → %j', (args, expected) => {
    expect(resolveDateRange(args, NOW)).toEqual(expected);
  });

  test.each([
    [{ since: '2026-02-30' }, /not a calendar date/],
    [{ since: '2026-13-01' }, /not a calendar date/],
    [{ since: '1d', until: '2d' }, /must be before until/],
    [{ since: '999999w' }, /100 years/],
  ])('%j is refused', (args, message) => {
    expect(() => resolveDateRange(args, NOW)).toThrow(message);
  });

  test.each([[{ since: 'last week' }], [{ until: '7 days' }], [{ since: '-7d' }], [{ since: '' }], [{ until: 'x'.repeat(41) }], [{ since: '2026-02-30' }], [{ since: '1h', until: '2h' }]])(
    'the tool answers %j with an invalid_arguments result',
    async (bounds) => {
      const db = tempDb();
      const p = createProject(db, { name: 'P' });
      const me = createSession(db, { projectId: p.id });
      const tool = createSessionSearchTool({ db });
      const r = await tool.execute({ query: 'backoff', ...bounds }, { currentSessionId: me.id });
      expect(r.error?.code).toBe('invalid_arguments');
      expect(r.error?.message).toMatch(/since|until/);
      expect(r.results).toEqual([]);
    },
  );
});

const WORDS = ['backoff', 'retry', 'jitter', '超时', 'deploy'];

/** A semantic source that ignores scope and dates: it returns every message of the database. */
function everythingSource(db: ReturnType<typeof tempDb>, ids: () => number[]): SemanticSource {
  return {
    status: () => ({ status: 'ready', coverage: 'unknown' }),
    async search(): Promise<SemanticHit[]> {
      return ids().map((id, i) => ({ messageId: id, sessionId: findMessage(db, id)!.sessionId, score: 0.9 - i * 0.001 }));
    },
  };
}

const worldArb = fc.record({
  sessions: fc.array(
    fc.record({
      project: fc.integer({ min: 0, max: 1 }),
      title: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
      messages: fc.array(fc.record({ day: fc.integer({ min: 0, max: 30 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  calls: fc.array(
    fc.record({
      shape: fc.constantFrom('keyword', 'hybrid', 'semantic', 'browse'),
      query: fc.constantFrom(...WORDS),
      since: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
      span: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
});

describe('dates as a property', () => {
  test('no result outside [since, until) and none from another project, in every shape', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async (w) => {
        const db = tempDb();
        const projects = [createProject(db, { name: 'A' }), createProject(db, { name: 'B' })];
        const base = Date.UTC(2026, 10, 1);
        const all: number[] = [];
        for (const s of w.sessions) {
          const session = createSession(db, { projectId: projects[s.project]!.id, ...(s.title ? { title: s.title } : {}), startedAt: base });
          const stored = appendMessages(
            db,
            session.id,
            s.messages.map((m, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: m.words.join(' '), createdAt: base + m.day * DAY + i })),
          ).messages;
          all.push(...stored.map((m) => m.id));
        }
        const caller = createSession(db, { projectId: projects[0]!.id });
        const tool = createSessionSearchTool({ db, semantic: everythingSource(db, () => all) });
        for (const c of w.calls) {
          const sinceMs = c.since === undefined ? undefined : base + c.since * DAY;
          const untilMs = c.span === undefined ? undefined : (sinceMs ?? base) + c.span * DAY;
          const iso = (ms: number) => new Date(ms).toISOString();
          const args = {
            ...(c.shape === 'browse' ? {} : { query: c.query, search_mode: c.shape }),
            ...(sinceMs !== undefined ? { since: iso(sinceMs) } : {}),
            ...(untilMs !== undefined ? { until: iso(untilMs) } : {}),
            limit: 50,
          };
          const r = await tool.execute(args, { currentSessionId: caller.id });
          expect(r.error).toBeUndefined();
          for (const item of r.results) {
            for (const id of [item.message_id, ...(item.other_message_ids ?? [])]) {
              const m = findMessage(db, id)!;
              const owner = db.raw.prepare('select project_id from sessions where id = ?').pluck().get(m.sessionId);
              expect(owner).toBe(projects[0]!.id);
              if (sinceMs !== undefined) expect(m.createdAt).toBeGreaterThanOrEqual(sinceMs);
              if (untilMs !== undefined) expect(m.createdAt).toBeLessThan(untilMs);
            }
          }
        }

      }),
      { numRuns: 40 },
    );
  });
});
