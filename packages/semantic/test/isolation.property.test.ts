/**
 * Isolation and consent as properties (fast-check): for arbitrary projects, conversations,
 * roles, visibilities, consents and moves, (1) every text the provider received belongs to a
 * message whose conversation was in a switched-on project when it was sent, and (2) each project's
 * status counts only chunks of conversations currently in it (visible messages of indexed roles in
 * non-hidden sessions) — never another project's. The oracle recomputes both from the messages.
 */
import fc from 'fast-check';
import { appendMessage, createProject, createSession, deleteMessage, setSessionProject, updateSession } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { parseSemanticConfig } from '../src/index.js';
import { sqliteSemanticIndex } from '../src/sqlite/index.js';
import { tempDb } from './support/temp-db.js';
import { testEmbedder } from './support/test-embedder.js';

const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'test-hash', dims: 16, maxInputTokens: 64 })!;

const sessionArb = fc.record({
  project: fc.integer({ min: -1, max: 2 }),
  hidden: fc.boolean(),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'system'), words: fc.integer({ min: 1, max: 60 }), deleted: fc.boolean() }), { maxLength: 5 }),
});

describe('isolation and consent (property)', () => {
  test('texts sent only from switched-on projects; counts only from the project itself', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.array(fc.record({ session: fc.nat(), to: fc.integer({ min: -1, max: 2 }) }), { maxLength: 4 }),
        async (sessions, enabled, moves) => {
          const db = tempDb();
          const provider = testEmbedder();
          const index = sqliteSemanticIndex({ db, config, provider });
          const projects = [0, 1, 2].map((i) => createProject(db, { name: `P${i}` }).id);
          const ids: string[] = [];
          sessions.forEach((s, si) => {
            const session = createSession(db, { projectId: s.project < 0 ? null : projects[s.project]! });
            ids.push(session.id);
            s.messages.forEach((m, mi) => {
              const stored = appendMessage(db, session.id, { role: m.role, content: Array.from({ length: m.words }, (_, w) => `s${si}m${mi}w${w}`).join(' ') });
              if (m.deleted) deleteMessage(db, stored.id);
            });
            if (s.hidden) updateSession(db, session.id, { hidden: true });
          });
          for (const [i, on] of enabled.entries()) if (on) await index.enable(projects[i]!);
          // every word names its message, so any chunk of it identifies the message it was cut from
          const sentFrom = (label: string) => db.raw.prepare('select s.project_id from messages m join sessions s on s.id = m.session_id where m.content like ?').pluck().get(`${label}w0%`) as string | null;
          const check = () => {
            for (const text of provider.texts()) {
              const label = /(s\d+m\d+)w/.exec(text)![1]!;
              const project = sentFrom(label);
              expect(project !== null && enabled[projects.indexOf(project)]).toBe(true);
            }
          };
          await index.run();
          check();
          provider.calls.length = 0;
          for (const mv of moves) setSessionProject(db, ids[mv.session % ids.length]!, mv.to < 0 ? null : projects[mv.to]!);
          await index.run();
          check();
          for (const [i, p] of projects.entries()) {
            const s = await index.status(p);
            const oracle = db.raw
              .prepare(
                `select count(*) from semantic_chunks c join messages m on m.id = c.message_id join sessions s on s.id = m.session_id
                 where s.project_id = ? and s.hidden = 0 and m.visibility in ('live','compacted') and m.role in ('user','assistant') and c.status = 'ready' and c.fingerprint_id = ?`,
              )
              .pluck()
              .get(p, index.fingerprint!.id) as number;
            expect(s.ready).toBe(oracle);
            if (!enabled[i]) expect(s.status).toBe('disabled');
            else {
              expect(s.status).toBe('ready');
              // every visible user/assistant message of a non-hidden session in the project has its chunk(s)
              const missing = db.raw
                .prepare(
                  `select count(*) from messages m join sessions s on s.id = m.session_id where s.project_id = ? and s.hidden = 0
                   and m.visibility = 'live' and m.role in ('user','assistant')
                   and not exists (select 1 from semantic_chunks c where c.message_id = m.id and c.status = 'ready')`,
                )
                .pluck()
                .get(p) as number;
              expect(missing).toBe(0);
            }
          }
          await index.close();
        },
      ),
      { numRuns: 25 },
    );
  });
});
