/**
 * Conformance of PurgeStore (hard deletes): the rules — a whole logical conversation goes
 * (continuations and delegation children with it, a branch or reset stays), hidden messages only,
 * a project refused while it owns a session, with its conversations otherwise, the typed errors —
 * and a fast-check property: whatever the data and whichever purge runs in one project, nothing of
 * another project (or of a project-less conversation) is removed or changed — its project row,
 * sessions, every message of every visibility and its keyword answers are exactly what they were —
 * while what the purge names is gone (so the property cannot pass by doing nothing).
 */
import fc from 'fast-check';
import type { MessageRole } from '@recall/rpc-contract';
import { describe, expect, it } from 'vitest';
import type { Storage } from '../storage.js';
import { codeOf, type OpenFreshStorage, useStorages } from './harness.js';

const WORDS = ['番茄', '鲈鱼', 'retry', 'deploy'] as const;
const ROLES = ['user', 'assistant', 'tool'] as const satisfies readonly MessageRole[];

function purgesOf(s: Storage) {
  if (!s.purges) throw new Error('this storage has no purges');
  return s.purges;
}

/** Everything a purge elsewhere must leave alone: the project, its sessions, their messages (any visibility), keyword answers. */
async function snapshotOf(s: Storage, projectId: string | null): Promise<unknown> {
  const project = projectId === null ? null : await s.projects.get(projectId);
  const sessions = (await s.sessions.list({ projectId, includeArchived: true, includeHidden: true, limit: 5000 })).sort((a, b) => a.id.localeCompare(b.id));
  const messages = [];
  for (const x of sessions) messages.push(await s.messages.list(x.id, { includeHidden: true, limit: 10_000 }));
  const keyword = [];
  if (projectId !== null) {
    for (const w of WORDS) keyword.push((await s.keyword.search({ kind: 'project', projectId }, w, { limit: 500, titleLimit: 0 })).hits.map((h) => h.messageId).sort((a, b) => a - b));
  }
  return { project, sessions, messages, keyword };
}

const step = fc.oneof(
  fc.record({ op: fc.constant('root' as const), project: fc.option(fc.nat(1), { nil: null }), hidden: fc.boolean() }),
  fc.record({ op: fc.constant('compress' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('delegate' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('reset' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('append' as const), to: fc.nat(), word: fc.constantFrom(...WORDS), role: fc.constantFrom(...ROLES) }),
  fc.record({ op: fc.constant('rewind' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), message: fc.nat() }),
);
const purge = fc.oneof(
  fc.record({ op: fc.constant('conversation' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('hidden' as const), of: fc.nat() }),
  fc.record({ op: fc.constant('project' as const) }),
);

/** Registers the PurgeStore rules and the other-project property. */
export function describePurgeConformance(open: OpenFreshStorage, options: { numRuns?: number } = {}): void {
  const fresh = useStorages(open);
  describe('purges (hard deletes)', () => {
    it('deletes a whole logical conversation, keeps a branch and a reset, and its text is no longer found', async () => {
      const s = await fresh();
      const p = await s.projects.create({ id: 'p_purge', name: 'Purge' });
      await s.sessions.create({ id: 'root', projectId: p.id, messages: [{ role: 'user', content: '番茄 one' }] });
      const next = (await s.sessions.continueCompressed('root', { id: 'next' })).session;
      await s.messages.append(next.id, [{ role: 'assistant', content: '番茄 two' }]);
      await s.sessions.delegate(next.id, { id: 'child' });
      await s.messages.append('child', [{ role: 'tool', content: '番茄 three' }]);
      await s.sessions.branch('root', { id: 'branch' });
      await s.sessions.reset('next', { id: 'reset' });
      await s.messages.append('reset', [{ role: 'user', content: '番茄 four' }]);
      const out = await purgesOf(s).deleteConversation('next');
      expect(out.sessionIds).toEqual(['root', 'next', 'child']);
      expect(out.messages).toBe(3);
      expect(out.projectIds).toEqual([p.id]);
      for (const id of out.sessionIds) expect(await s.sessions.find(id)).toBeUndefined();
      expect(await s.sessions.find('branch')).toBeDefined();
      const hits = (await s.keyword.search({ kind: 'project', projectId: p.id }, '番茄', { limit: 50 })).hits;
      expect(hits.map((h) => h.sessionId).sort()).toEqual(['branch', 'reset']);
      expect(await codeOf(purgesOf(s).deleteConversation('next'))).toBe('session_not_found');
    });

    it('purges only the rewound and deleted messages of the conversation', async () => {
      const s = await fresh();
      const a = await s.sessions.create({ id: 'a', messages: [{ role: 'user', content: 'keep' }, { role: 'assistant', content: 'gone' }, { role: 'user', content: 'rewound' }] });
      const [keep, gone] = await s.messages.list(a.id);
      await s.messages.delete(gone!.id);
      await s.messages.rewind(a.id, gone!.id);
      await s.sessions.create({ id: 'other', messages: [{ role: 'user', content: 'x' }] });
      await s.messages.delete((await s.messages.list('other'))[0]!.id);
      const out = await purgesOf(s).purgeHidden('a');
      expect(out).toMatchObject({ sessionIds: ['a'], messages: 2, projectIds: [] });
      expect((await s.messages.list('a', { includeHidden: true })).map((m) => m.id)).toEqual([keep!.id]);
      expect(await s.messages.list('other', { includeHidden: true })).toHaveLength(1);
      expect(await codeOf(purgesOf(s).purgeHidden('nope'))).toBe('session_not_found');
    });

    it('refuses a project that owns a session unless its conversations go too', async () => {
      const s = await fresh();
      const p = await s.projects.create({ id: 'p_full', name: 'Full', folders: ['/tmp/recall-purge-full'] });
      const empty = await s.projects.create({ id: 'p_empty', name: 'Empty' });
      await s.sessions.create({ id: 'h', projectId: p.id, hidden: true, messages: [{ role: 'user', content: 'deploy' }] });
      expect(await codeOf(purgesOf(s).deleteProject(p.id))).toBe('project_has_sessions');
      expect(await s.sessions.find('h')).toBeDefined();
      expect(await purgesOf(s).deleteProject(empty.id)).toMatchObject({ sessionIds: [], messages: 0, projectIds: [empty.id] });
      const out = await purgesOf(s).deleteProject(p.id, { withConversations: true });
      expect(out).toMatchObject({ sessionIds: ['h'], messages: 1, projectIds: [p.id] });
      expect(await s.projects.find(p.id)).toBeUndefined();
      expect(await s.projects.findByFolder('/tmp/recall-purge-full')).toBeUndefined();
      expect(await codeOf(purgesOf(s).deleteProject(p.id))).toBe('project_not_found');
    });

    it('a purge in one project never removes or changes anything of another (property)', async () => {
      const s = await fresh();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 16 }), purge, async (steps, what) => {
          run++;
          const projects = [`p_u${run}a`, `p_u${run}b`];
          for (const id of projects) await s.projects.create({ id, name: id });
          const sessions: Array<{ id: string; project: string | null; compressed: boolean }> = [];
          // Project-less conversations share one bucket across runs: the property compares all of them.
          const messages: number[] = [];
          for (const st of steps) {
            if (st.op === 'root' || sessions.length === 0) {
              const project = st.op !== 'root' ? projects[0]! : st.project === null ? null : projects[st.project]!;
              const id = `u${run}s${sessions.length}`;
              await s.sessions.create({ id, projectId: project, hidden: st.op === 'root' && st.hidden });
              sessions.push({ id, project, compressed: false });
              continue;
            }
            const src = sessions[('of' in st ? st.of : 'to' in st ? st.to : 0) % sessions.length]!;
            const id = `u${run}s${sessions.length}`;
            if (st.op === 'compress' && !src.compressed) {
              await s.sessions.continueCompressed(src.id, { id });
              src.compressed = true;
              sessions.push({ id, project: src.project, compressed: false });
            } else if (st.op === 'delegate') {
              await s.sessions.delegate(src.id, { id });
              sessions.push({ id, project: src.project, compressed: false });
            } else if (st.op === 'reset') {
              await s.sessions.reset(src.id, { id });
              sessions.push({ id, project: src.project, compressed: false });
            } else if (st.op === 'append') {
              messages.push((await s.messages.append(src.id, [{ role: st.role, content: `${st.word} ${run}` }])).messages[0]!.id);
            } else if (st.op === 'rewind') {
              const own = await s.messages.list(src.id);
              if (own.length > 0) await s.messages.rewind(src.id, own[0]!.id);
            } else if (st.op === 'delete' && messages.length > 0) {
              await s.messages.delete(messages[st.message % messages.length]!);
            }
          }
          const [target, other] = projects as [string, string];
          const before = await snapshotOf(s, other);
          const loose = await snapshotOf(s, null);
          const inTarget = sessions.filter((x) => x.project === target);
          if (what.op === 'project') {
            await purgesOf(s).deleteProject(target, { withConversations: true });
            expect(await s.projects.find(target)).toBeUndefined();
            for (const x of inTarget) expect(await s.sessions.find(x.id)).toBeUndefined();
          } else if (inTarget.length > 0) {
            const victim = inTarget[what.of % inTarget.length]!;
            if (what.op === 'conversation') {
              const out = await purgesOf(s).deleteConversation(victim.id);
              expect(out.sessionIds).toContain(victim.id);
              for (const id of out.sessionIds) expect(await s.sessions.find(id)).toBeUndefined();
            } else {
              const out = await purgesOf(s).purgeHidden(victim.id);
              for (const id of out.sessionIds) {
                for (const m of await s.messages.list(id, { includeHidden: true })) expect(['live', 'compacted']).toContain(m.visibility);
              }
            }
            // Whatever is left of the target project answers only with its own remaining messages.
            for (const w of WORDS) {
              for (const h of (await s.keyword.search({ kind: 'project', projectId: target }, w, { limit: 500 })).hits) expect(await s.messages.find(h.messageId)).toBeDefined();
            }
          }
          expect(await snapshotOf(s, other)).toEqual(before);
          expect(await snapshotOf(s, null)).toEqual(loose);
        }),
        { numRuns: options.numRuns ?? 15 },
      );
    });
  });
}
