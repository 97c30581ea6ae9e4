/**
 * Property: whatever the projects, sessions and messages, a keyword query from project A never
 * returns a message of another project (or of no project, a hidden session, a rewound/deleted
 * message) — and it returns every visible message of A that contains the word (limit permitting),
 * so the filter is not satisfied by returning nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VISIBILITIES } from '../src/enums.js';
import { insertMessages, searchKeyword } from '../src/index.js';
import { projects, sessions } from '../src/tables.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const WORDS = ['番茄', '鸡蛋', '炒蛋', '鲈鱼', 'retry', 'backoff', 'deploy', 'rollback', 'timeout', 'café'] as const;

const world = fc.record({
  projectCount: fc.integer({ min: 1, max: 3 }),
  sessions: fc.array(
    fc.record({
      project: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      hidden: fc.boolean(),
      messages: fc.array(
        fc.record({
          words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
          visibility: fc.constantFrom(...VISIBILITIES),
        }),
        { maxLength: 5 },
      ),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  queryWord: fc.constantFrom(...WORDS),
  asker: fc.integer({ min: 0, max: 2 }),
});

describe('project isolation (property)', () => {
  it('a query from project A returns exactly the visible messages of A that contain the word', async () => {
    const db = await cluster.open();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        run++;
        const projectIds = Array.from({ length: w.projectCount }, (_, i) => `r${run}-p${i}`);
        await db.orm.insert(projects).values(projectIds.map((id) => ({ id, name: id, slug: id })));
        const owner = new Map<number, { project: string | null; visible: boolean; words: readonly string[] }>();
        for (const [si, s] of w.sessions.entries()) {
          const sessionId = `r${run}-s${si}`;
          const project = s.project === null ? null : projectIds[s.project % projectIds.length]!;
          await db.orm.insert(sessions).values({ id: sessionId, projectId: project, hidden: s.hidden });
          const ids = await insertMessages(
            db,
            sessionId,
            s.messages.map((m) => ({ role: 'user', content: m.words.join('，'), visibility: m.visibility })),
          );
          ids.forEach((id, i) => {
            const m = s.messages[i]!;
            owner.set(id, { project, visible: !s.hidden && (m.visibility === 'live' || m.visibility === 'compacted'), words: m.words });
          });
        }
        const asker = projectIds[w.asker % projectIds.length]!;
        const result = await searchKeyword(db, { projectId: asker, query: w.queryWord, limit: 500 });
        for (const hit of result.hits) {
          const o = owner.get(hit.messageId);
          expect(o, `hit ${hit.messageId} is not a message of this run`).toBeDefined();
          expect(o!.project).toBe(asker);
          expect(o!.visible).toBe(true);
        }
        const expected = [...owner.entries()].filter(([, o]) => o.project === asker && o.visible && o.words.includes(w.queryWord)).map(([id]) => id);
        expect(result.hits.map((h) => h.messageId).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
      }),
      { numRuns: 50 },
    );
  });
});
