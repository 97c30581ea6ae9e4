/**
 * Isolation property test for keyword search: random projects, sessions (some with no project,
 * some hidden, some automated) and messages drawn from a vocabulary shared across projects, random
 * visibility changes and random moves — including moves whose scope-token refresh is lost, so the
 * FTS pre-filter is stale. For random queries (vocabulary words, phrases, arbitrary strings), every
 * message and title hit must belong to the scope according to the database's CURRENT state, be
 * visible, and match the role filter. Zero leaks is the only passing figure. When tokens are fresh,
 * single-word queries must also find every visible in-scope message containing the word (the
 * pre-filter hides nothing after a proper move).
 */
import fc from 'fast-check';
import type { RecallDatabase } from '@recall/schema';
import { describe, expect, test } from 'vitest';
import { keywordSearch, type KeywordScope } from '../src/keyword-search.js';
import { appendMessages, compactMessages, deleteMessage, rewindSession } from '../src/messages.js';
import { setSessionProject } from '../src/moves.js';
import { createProject } from '../src/projects.js';
import { createSession } from '../src/sessions.js';
import { normalizeForSearch } from '../src/search-text.js';
import { tempDb } from './support/temp-db.js';

const WORDS = ['retry', 'backoff', 'busy_timeout', 'config.yaml', 'E_CONN_RESET', 'deploy', '蒸鱼', '鲈鱼', '数据库', '迁移', '问题', '茶', 'alpha', 'beta'];
const ROLES = ['user', 'assistant', 'tool', 'system'] as const;

const sessionArb = fc.record({
  project: fc.integer({ min: -1, max: 2 }), // -1 = no project
  hidden: fc.boolean(),
  automated: fc.boolean(),
  title: fc.option(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  messages: fc.array(
    fc.record({
      role: fc.constantFrom(...ROLES),
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
      fate: fc.constantFrom('live', 'live', 'live', 'deleted', 'compacted', 'rewound'),
    }),
    { minLength: 1, maxLength: 5 },
  ),
});

const moveArb = fc.record({ session: fc.nat(), project: fc.integer({ min: -1, max: 2 }), lostRefresh: fc.boolean() });

const queryArb = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 4 }).map((w) => w.join(' ')),
  fc.constantFrom(...WORDS).map((w) => `"${w}"`),
  fc.constantFrom('what did we decide about the retry backoff?', '我上次说的那道蒸鱼要蒸多久？', '修复 busy_timeout 问题', '%', '_', '*', 'NOT alpha', 'alpha OR', '"unbalanced'),
  fc.string({ maxLength: 30 }),
);

const worldArb = fc.record({
  sessions: fc.array(sessionArb, { minLength: 2, maxLength: 8 }),
  moves: fc.array(moveArb, { maxLength: 4 }),
  queries: fc.array(fc.record({ text: queryArb, roles: fc.subarray([...ROLES]) }), { minLength: 3, maxLength: 8 }),
});

interface Built {
  projects: string[];
  sessionIds: string[];
  stale: boolean;
}

type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function build(db: RecallDatabase, world: World): Built {
  const projects = [0, 1, 2].map((i) => createProject(db, { id: `p_${i}`, name: `P${i}` }).id);
  const sessionIds: string[] = [];
  world.sessions.forEach((s, i) => {
    const id = `s${i}`;
    createSession(db, {
      id,
      projectId: s.project < 0 ? null : projects[s.project]!,
      hidden: s.hidden,
      source: s.automated ? 'cron' : 'desktop',
      title: s.title?.join(' '),
    });
    const ids = appendMessages(
      db,
      id,
      s.messages.map((m, k) => ({ role: m.role, content: `${m.words.join(' ')} 第${k}条`, createdAt: 1000 + k })),
    ).messages.map((m) => m.id);
    s.messages.forEach((m, k) => {
      const mid = ids[k]!;
      if (m.fate === 'deleted') deleteMessage(db, mid);
      else if (m.fate === 'compacted') compactMessages(db, id, mid);
    });
    // Rewind after the first message if any message asked for it.
    if (s.messages.some((m) => m.fate === 'rewound')) rewindSession(db, id, ids[0]!);
    sessionIds.push(id);
  });
  let stale = false;
  for (const mv of world.moves) {
    const sid = sessionIds[mv.session % sessionIds.length]!;
    const target = mv.project < 0 ? null : projects[mv.project]!;
    if (mv.lostRefresh) {
      // A move whose token refresh was lost: the FTS pre-filter now disagrees with project_id.
      db.raw.prepare('update sessions set project_id = ? where id = ?').run(target, sid);
      db.raw.prepare('delete from keyword_scope_dirty').run();
      stale = true;
    } else {
      setSessionProject(db, sid, target);
    }
  }
  return { projects, sessionIds, stale };
}

type Row = { id: number; session_id: string; role: string; visibility: string; content: string; project_id: string | null; hidden: number };

describe('keyword search isolation (property)', () => {
  test('every hit is in scope, visible and of an allowed role; nothing in scope is hidden by the pre-filter', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const db = tempDb();
        const built = build(db, world);
        const rows = db.raw
          .prepare('select m.id, m.session_id, m.role, m.visibility, m.content, s.project_id, s.hidden from messages m join sessions s on s.id = m.session_id')
          .all() as Row[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        const sessionRows = new Map(
          (db.raw.prepare('select id, project_id, hidden from sessions').all() as { id: string; project_id: string | null; hidden: number }[]).map((s) => [s.id, s]),
        );
        const nullSessions = built.sessionIds.filter((id) => sessionRows.get(id)!.project_id === null);
        // `visibility` is given for message hits; titles pass none. An excluded session (the caller's
        // own) is out of scope for its live messages and title, in scope for its compacted messages.
        const scopes: { scope: KeywordScope; allows: (sessionId: string, visibility?: string) => boolean }[] = [
          ...built.projects.map((p) => ({ scope: { kind: 'project', projectId: p } as KeywordScope, allows: (s: string) => sessionRows.get(s)!.project_id === p })),
          {
            scope: { kind: 'project', projectId: built.projects[0]!, excludeSessionIds: built.sessionIds.slice(0, 1) },
            allows: (s: string, visibility?: string) =>
              sessionRows.get(s)!.project_id === built.projects[0] && (s !== built.sessionIds[0] || visibility === 'compacted'),
          },
          { scope: { kind: 'sessions', sessionIds: nullSessions.slice(0, 2) }, allows: (s: string) => nullSessions.slice(0, 2).includes(s) },
          { scope: { kind: 'project', projectId: 'p_missing' }, allows: () => false },
        ];
        for (const [qi, q] of world.queries.entries()) {
          for (const { scope, allows } of scopes) {
            // Half the queries force the scope-token pre-filter (tiny worlds never reach the
            // production threshold), so stale tokens after lost refreshes are exercised.
            const result = keywordSearch(db, scope, q.text, { limit: 500, roleFilter: q.roles, titleLimit: 50, scopeTokenMinMatches: qi % 2 === 0 ? 0 : undefined });
            for (const hit of result.hits) {
              const row = byId.get(hit.messageId)!;
              expect(row.session_id).toBe(hit.sessionId);
              expect(allows(hit.sessionId, row.visibility)).toBe(true);
              expect(row.hidden).toBe(0);
              expect(['live', 'compacted']).toContain(row.visibility);
              if (q.roles.length > 0) expect(q.roles).toContain(row.role);
            }
            for (const title of result.titleHits) {
              expect(allows(title.sessionId)).toBe(true);
              expect(sessionRows.get(title.sessionId)!.hidden).toBe(0);
            }
            // Completeness for plain single-word queries when no token is stale: every visible
            // in-scope message containing the word is found (CJK partial matching may add more).
            if (!built.stale && WORDS.includes(q.text) && q.roles.length === 0) {
              const needle = normalizeForSearch(q.text);
              const expected = rows
                .filter((r) => allows(r.session_id, r.visibility) && r.hidden === 0 && (r.visibility === 'live' || r.visibility === 'compacted'))
                .filter((r) => normalizeForSearch(r.content).split(/\s+/).includes(needle))
                .map((r) => r.id)
                .sort((a, b) => a - b);
              expect(result.hits.map((h) => h.messageId)).toEqual(expect.arrayContaining(expected));
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
