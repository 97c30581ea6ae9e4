/**
 * The plans of a project keyword search give one answer. With the default threshold a project
 * search picks its plan by size (keyword-rank.ts): a small match scored whole in JavaScript
 * (keyword-small.ts), the scope token from a share of the project's rows, or the ranked JOIN. A
 * fast-check property runs random worlds (projects, hidden and automated sessions, every role,
 * Chinese with gaps between CJK runs, dates) through searches interleaved with appends and moves,
 * and requires the same hits with the same scores from: the default plan, the JOIN only
 * (scopeTokenMinMatches 1e6), the token only (0), the default with the small-match plan off, and a
 * fresh connection (nothing kept). Plus the tokenisation the small plan relies on: columnTokens
 * equals the index's own (tokens of indexColumns), and a CJK leaf's substring count equals its
 * token count, gaps between runs included.
 */
import type { RecallDatabase } from '@recall/schema';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { keywordSearch, type KeywordScope, type KeywordSearchOptions } from '../src/keyword-search.js';
import { setSmallScoreMax } from '../src/keyword-small.js';
import { columnTokens, frequencies, matchLeaves, phraseFrequency, tokens } from '../src/keyword-tokens.js';
import { appendMessages } from '../src/messages.js';
import { setSessionProject } from '../src/moves.js';
import { createProject } from '../src/projects.js';
import { indexColumns } from '../src/search-text.js';
import { createSession } from '../src/sessions.js';
import { openAgain, tempDb } from './support/temp-db.js';

const WORDS = ['retry', 'backoff', 'busy_timeout', 'deploy', 'cache', 'Café', '蒸鱼', '鲈鱼', '数据库', '迁移', '番茄炒蛋', '番茄', '茄炒', '问题', '茶', 'ｆｕｌｌ'];
const GLUE = [' ', ', ', '，', '。', '', ' - ', '\n'];
const ROLES = ['user', 'assistant', 'tool', 'system'] as const;

const textArb = fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...GLUE)), { minLength: 1, maxLength: 8 }).map((parts) => parts.map(([w, g]) => w + g).join(''));
const sessionArb = fc.record({
  project: fc.integer({ min: 0, max: 2 }),
  hidden: fc.boolean(),
  automated: fc.boolean(),
  messages: fc.array(fc.record({ role: fc.constantFrom(...ROLES), text: textArb, at: fc.integer({ min: 0, max: 50 }) }), { minLength: 1, maxLength: 6 }),
});
const stepArb = fc.oneof(
  fc.record({ op: fc.constant('search' as const), query: fc.oneof(fc.constantFrom(...WORDS), textArb, fc.constantFrom('what did we decide about the retry backoff?', '番茄炒蛋怎么做', '数据库迁移的问题')) }),
  fc.record({ op: fc.constant('append' as const), session: fc.nat(), text: textArb }),
  fc.record({ op: fc.constant('move' as const), session: fc.nat(), project: fc.integer({ min: 0, max: 2 }) }),
);
const worldArb = fc.record({ sessions: fc.array(sessionArb, { minLength: 2, maxLength: 6 }), steps: fc.array(stepArb, { minLength: 4, maxLength: 12 }) });

interface WorldSession {
  project: number;
  hidden: boolean;
  automated: boolean;
  messages: { role: (typeof ROLES)[number]; text: string; at: number }[];
}

function build(db: RecallDatabase, sessions: readonly WorldSession[]): string[] {
  for (const i of [0, 1, 2]) createProject(db, { id: `p_${i}`, name: `P${i}` });
  return sessions.map((s, i) => {
    const id = `s${i}`;
    createSession(db, { id, projectId: `p_${s.project}`, hidden: s.hidden, source: s.automated ? 'cron' : 'desktop' });
    appendMessages(db, id, s.messages.map((m) => ({ role: m.role, content: m.text, createdAt: 1_000 + m.at })));
    return id;
  });
}

type Hit = [number, number];
function hits(db: RecallDatabase, scope: KeywordScope, query: string, options: KeywordSearchOptions): Hit[] {
  return keywordSearch(db, scope, query, { limit: 8, titleLimit: 0, replyCredit: false, coverageRerank: false, ...options }).hits.map((h) => [h.messageId, h.score]);
}

function expectSameHits(actual: Hit[], expected: Hit[], label: string): void {
  expect(actual.map(([id]) => id), label).toEqual(expected.map(([id]) => id));
  actual.forEach(([, s], i) => expect(s, label).toBeCloseTo(expected[i]![1], 9));
}

describe('project keyword plans (property)', () => {
  test('the default plan, the JOIN, the token, the default without the small plan and a fresh connection rank alike', () => {
    fc.assert(
      fc.property(worldArb, fc.subarray([...ROLES]), fc.boolean(), (world, roles, dated) => {
        const db = tempDb();
        const ids = build(db, world.sessions);
        const scopes: KeywordScope[] = [
          { kind: 'project', projectId: 'p_0' },
          { kind: 'project', projectId: 'p_1', excludeSessionIds: [ids[0]!] },
        ];
        const base: KeywordSearchOptions = { ...(roles.length > 0 ? { roleFilter: roles } : {}), ...(dated ? { since: 1_010, until: 1_040 } : {}) };
        for (const step of world.steps) {
          if (step.op === 'append') appendMessages(db, ids[step.session % ids.length]!, [{ role: 'user', content: step.text, createdAt: 1_020 }]);
          else if (step.op === 'move') setSessionProject(db, ids[step.session % ids.length]!, `p_${step.project}`);
          else {
            for (const scope of scopes) {
              const plan = hits(db, scope, step.query, base);
              expectSameHits(hits(db, scope, step.query, { ...base, scopeTokenMinMatches: 1_000_000 }), plan, 'JOIN');
              expectSameHits(hits(db, scope, step.query, { ...base, scopeTokenMinMatches: 0 }), plan, 'token');
              const knob = setSmallScoreMax(0);
              try {
                expectSameHits(hits(db, scope, step.query, base), plan, 'no small plan');
              } finally {
                setSmallScoreMax(knob);
              }
              const fresh = openAgain(db.path);
              try {
                expectSameHits(hits(fresh, scope, step.query, base), plan, 'fresh connection');
              } finally {
                fresh.close();
              }
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  test.each([
    ['hidden sessions', { hidden: true, automated: false }],
    ['the caller\'s own live messages', { hidden: false, automated: false }],
    ['automated sessions', { hidden: false, automated: true }],
  ])('the small plan gates past a first batch of best-scoring rows that fail the gate: %s', (_name, blocked) => {
    const db = tempDb();
    // 40 rows scoring best (the word twice, short) in the blocked session, 6 ordinary ones in others.
    build(db, [
      { project: 0, ...blocked, messages: Array.from({ length: 40 }, (_, i) => ({ role: 'user' as const, text: `retry retry ${i}`, at: i })) },
      ...Array.from({ length: 6 }, (_, i) => ({ project: 0, hidden: false, automated: false, messages: [{ role: 'user' as const, text: `we should retry the deploy later, number ${i}`, at: i }] })),
    ]);
    const scope: KeywordScope = { kind: 'project', projectId: 'p_0', excludeSessionIds: ['s0'] };
    const plan = hits(db, scope, 'retry', { limit: 5 });
    expectSameHits(plan, hits(db, scope, 'retry', { limit: 5, scopeTokenMinMatches: 1_000_000 }), 'JOIN');
    expect(plan).toHaveLength(5);
    if (!blocked.automated) expect(plan.every(([id]) => id > 40)).toBe(true);
  });

  test('order "any" (scopeStatistics false) finds the same messages, only ordered by the index', () => {
    const db = tempDb();
    build(db, [
      { project: 0, hidden: false, automated: false, messages: [{ role: 'user', text: 'retry backoff cache', at: 1 }, { role: 'assistant', text: 'retry the deploy', at: 2 }] },
      { project: 1, hidden: false, automated: false, messages: Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, text: `retry ${i} retry`, at: i })) },
    ]);
    const scope: KeywordScope = { kind: 'sessions', sessionIds: ['s0'] };
    const ranked = keywordSearch(db, scope, 'retry', { limit: 10 }).hits.map((h) => h.messageId).sort();
    const counted = keywordSearch(db, scope, 'retry', { limit: 10, scopeStatistics: false }).hits.map((h) => h.messageId).sort();
    expect(counted).toEqual(ranked);
    expect(counted).toHaveLength(2);
  });
});

describe('the tokenisation the small plan counts with', () => {
  const alphabet = fc.constantFrom('番', '茄', '炒', '蛋', '鱼', 'ー', '々', '゛', 'ア', '한', ' ', '，', ',', '。', 'a', 'É', 'e\u0301', '1', '_', '\n', 'ｆ', '<private>', '</private>');
  const anyText = fc.array(alphabet, { maxLength: 40 }).map((a) => a.join(''));

  test('columnTokens equals the tokens of the index columns (property)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const cols = indexColumns(text);
        expect(columnTokens(text)).toEqual({ body: tokens(cols.body), cjk: cols.cjk === '' ? [] : tokens(cols.cjk) });
      }),
      { numRuns: 500 },
    );
  });

  test.each([
    ['a chain inside one run', '我爱番茄炒蛋', '番茄炒', 1],
    ['a chain across a comma between runs (FTS5 sees adjacent bigrams)', '番茄，茄炒', '番茄炒', 1],
    ['a chain across a space', '番茄 茄炒', '番茄炒', 1],
    ['no chain across a Latin word', '番茄 x 茄炒', '番茄炒', 0],
  ])('a CJK word is counted as the index counts it: %s', (_name, text, word, expected) => {
    // The phrase the index holds for a three-character word: its bigrams in a row.
    const chars = Array.from(word);
    const leaves = matchLeaves(`body : "${chars.slice(0, -1).map((c, i) => c + chars[i + 1]).join(' ')}"`);
    const byTokens = leaves.map((l) => phraseFrequency(l.weight === 'A' ? columnTokens(text).body : columnTokens(text).cjk, l.tokens));
    expect(frequencies(leaves)(text)).toEqual(byTokens);
    expect(leaves[0]!.needle).toBe(word);
    expect(byTokens).toEqual([expected]);
  });

  test('substring counts of CJK leaves equal token counts (property)', () => {
    const words = fc.constantFrom('番茄炒', '番茄', '茄', '炒蛋', '番茄炒蛋', '鱼');
    fc.assert(
      fc.property(anyText, fc.array(words, { minLength: 1, maxLength: 3 }), (text, ws) => {
        // Each word as its bigram chain in `body` and its characters in `cjk`, as the index holds them.
        const phrases = ws.flatMap((w) => {
          const c = Array.from(w);
          return [`body : "${c.length < 2 ? w : c.slice(0, -1).map((x, i) => x + c[i + 1]).join(' ')}"`, ...c.map((x) => `cjk : "${x}"`)];
        });
        const leaves = matchLeaves(phrases.join(' OR '));
        const cols = columnTokens(text);
        expect(frequencies(leaves)(text)).toEqual(leaves.map((l) => phraseFrequency(l.weight === 'A' ? cols.body : cols.cjk, l.tokens)));
      }),
      { numRuns: 500 },
    );
  });
});
