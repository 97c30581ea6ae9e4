/**
 * Conformance (property, fast-check): whatever the projects, sessions (roots, compression
 * continuations, resets, hidden ones), messages (roles, visibilities), moves, rewinds and deletes,
 * every search shape through the ports — keyword discover (with and without a role filter), browse
 * (recentConversations), the sidebar (listConversations) — returns nothing of another project, no
 * hidden session, no rewound/deleted message, and keyword discover returns exactly the expected set
 * (so the filter is not satisfied by returning nothing). The expectation comes from a model of
 * ownership kept by the test, never from the storage under test.
 */
import fc from 'fast-check';
import type { MessageRole } from '@recall/rpc-contract';
import { describe, expect, it } from 'vitest';
import { type OpenFreshStorage, useStorages } from './harness.js';

const WORDS = ['番茄', '鸡蛋', '鲈鱼', '牛肉', 'retry', 'backoff', 'deploy', 'timeout'] as const;
const ROLES = ['user', 'assistant', 'tool'] as const satisfies readonly MessageRole[];

const step = fc.oneof(
  fc.record({ op: fc.constant('root' as const), project: fc.option(fc.nat(2), { nil: null }), hidden: fc.boolean() }),
  fc.record({ op: fc.constant('compress' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('reset' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('append' as const), to: fc.nat(), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), role: fc.constantFrom(...ROLES) }),
  fc.record({ op: fc.constant('move' as const), of: fc.nat(), project: fc.option(fc.nat(2), { nil: null }) }),
  fc.record({ op: fc.constant('rewind' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), message: fc.nat() }),
);

interface ModelSession {
  id: string;
  conv: number;
  project: string | null;
  hidden: boolean;
  compressed: boolean;
}
interface ModelMessage {
  id: number;
  session: number;
  words: readonly string[];
  role: MessageRole;
  visible: boolean;
}

/** Registers the isolation property over every search shape. */
export function describeIsolationConformance(open: OpenFreshStorage, options: { numRuns?: number } = {}): void {
  const fresh = useStorages(open);
  describe('project isolation (property)', () => {
    it('no search shape returns anything of another project, a hidden session or an invisible message', async () => {
      const s = await fresh();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 24 }), fc.nat(2), fc.constantFrom(...WORDS), fc.option(fc.constantFrom(...ROLES), { nil: undefined }), async (steps, askerIndex, word, role) => {
          run++;
          const projects = [0, 1, 2].map((i) => `p_r${run}x${i}`);
          for (const id of projects) await s.projects.create({ id, name: id });
          const sessions: ModelSession[] = [];
          const messages: ModelMessage[] = [];
          for (const st of steps) {
            if (st.op === 'root' || sessions.length === 0) {
              const project = st.op === 'root' && st.project !== null ? projects[st.project]! : null;
              const hidden = st.op === 'root' ? st.hidden : false;
              const id = `r${run}s${sessions.length}`;
              await s.sessions.create({ id, projectId: project, hidden });
              sessions.push({ id, conv: sessions.length, project, hidden, compressed: false });
              continue;
            }
            if (st.op === 'compress') {
              const src = sessions[st.of % sessions.length]!;
              if (src.compressed) continue;
              const next = (await s.sessions.continueCompressed(src.id, { id: `r${run}s${sessions.length}` })).session;
              src.compressed = true;
              sessions.push({ id: next.id, conv: src.conv, project: src.project, hidden: false, compressed: false });
            } else if (st.op === 'reset') {
              const src = sessions[st.of % sessions.length]!;
              const next = await s.sessions.reset(src.id, { id: `r${run}s${sessions.length}` });
              sessions.push({ id: next.id, conv: sessions.length, project: src.project, hidden: false, compressed: false });
            } else if (st.op === 'append') {
              const at = st.to % sessions.length;
              const out = await s.messages.append(sessions[at]!.id, [{ role: st.role, content: st.words.join('，') }]);
              messages.push({ id: out.messages[0]!.id, session: at, words: st.words, role: st.role, visible: true });
            } else if (st.op === 'move') {
              const src = sessions[st.of % sessions.length]!;
              const target = st.project === null ? null : projects[st.project]!;
              await s.sessions.move(src.id, target);
              for (const x of sessions) if (x.conv === src.conv) x.project = target;
            } else if (st.op === 'rewind') {
              const at = st.of % sessions.length;
              const own = messages.filter((m) => m.session === at && m.visible);
              if (own.length === 0) continue;
              await s.messages.rewind(sessions[at]!.id, own[0]!.id);
              for (const m of own.slice(1)) m.visible = false;
            } else if (st.op === 'delete' && messages.length > 0) {
              const m = messages[st.message % messages.length]!;
              await s.messages.delete(m.id);
              m.visible = false;
            }
          }
          const asker = projects[askerIndex]!;
          const sessionOf = new Map(sessions.map((x) => [x.id, x]));
          const visibleIds = new Set(messages.filter((m) => m.visible && !sessions[m.session]!.hidden).map((m) => m.id));
          const inAsker = (sessionId: string) => sessionOf.get(sessionId)?.project === asker && !sessionOf.get(sessionId)!.hidden;

          // discover (keyword), with and without a role filter
          const answer = await s.keyword.search({ kind: 'project', projectId: asker }, word, { limit: 500, ...(role ? { roles: [role] } : {}) });
          for (const hit of answer.hits) {
            expect(inAsker(hit.sessionId), `hit in ${hit.sessionId}`).toBe(true);
            expect(visibleIds.has(hit.messageId)).toBe(true);
          }
          const expected = messages
            .filter((m) => m.visible && inAsker(sessions[m.session]!.id) && m.words.includes(word) && (role === undefined || m.role === role))
            .map((m) => m.id)
            .sort((a, b) => a - b);
          expect(answer.hits.map((h) => h.messageId).sort((a, b) => a - b)).toEqual(expected);
          for (const t of answer.titleHits) expect(inAsker(t.sessionId)).toBe(true);

          // browse. Its segments are a conversation's compression chain, which may start at a hidden
          // root (a hidden session compressed into a visible one): the store reads that chain whole, so
          // here only the project and the message visibility are asserted (both adapters agree).
          const inProject = (sessionId: string) => sessionOf.get(sessionId)?.project === asker;
          const visibleAnywhere = new Set(messages.filter((m) => m.visible).map((m) => m.id));
          const recent = await s.sessions.recentConversations({ kind: 'project', projectId: asker }, { limit: 50, order: 'newest', ...(role ? { roles: [role] } : {}) });
          for (const c of recent.conversations) {
            for (const seg of c.segments) expect(inProject(seg)).toBe(true);
            for (const m of [c.first, c.last]) {
              expect(visibleAnywhere.has(m.id)).toBe(true);
              expect(inProject(m.sessionId)).toBe(true);
            }
          }
          // sidebar
          const page = await s.sessions.listConversations({ projectId: asker, limit: 500 });
          for (const c of page.conversations) for (const x of c.sessions) expect(x.projectId).toBe(asker);
          expect(page.total).toBe(new Set(sessions.filter((x) => x.project === asker && !x.hidden).map((x) => x.conv)).size);
        }),
        { numRuns: options.numRuns ?? 25 },
      );
    });
  });
}
