/**
 * Conformance: projects, sessions, lineage, moves and messages behave the same on every adapter —
 * ids, foreign keys (a project with sessions cannot be deleted), uniqueness, visibility, lineage
 * rules and the typed error codes.
 */
import { describe, expect, it } from 'vitest';
import { codeOf, type OpenFreshStorage, useStorages } from './harness.js';

/** Registers the projects/sessions/messages conformance tests. */
export function describeCoreConformance(open: OpenFreshStorage): void {
  const fresh = useStorages(open);

  describe('projects', () => {
    it('create, find, list, archive, delete — and the typed errors', async () => {
      const s = await fresh();
      const a = await s.projects.create({ name: 'Cooking', folders: ['/work/cook'] });
      expect(a.id).toMatch(/^p_/);
      expect(a.slug).toBe('cooking');
      const b = await s.projects.create({ id: 'p_ops', name: 'Cooking' });
      expect(b.slug).not.toBe(a.slug);
      expect(await s.projects.get(a.id)).toMatchObject({ name: 'Cooking', archived: false });
      expect(await s.projects.find('p_missing')).toBeUndefined();
      expect(await s.projects.exists('p_ops')).toBe(true);
      expect((await s.projects.findByRef(a.slug))?.id).toBe(a.id);
      expect((await s.projects.findByFolder('/work/cook'))?.id).toBe(a.id);
      expect((await s.projects.coveringFolder('/work/cook/src/deep'))?.id).toBe(a.id);
      expect(await codeOf(s.projects.get('p_missing'))).toBe('project_not_found');
      expect(await codeOf(s.projects.create({ name: '' }))).toBe('invalid_input');
      expect(await codeOf(s.projects.create({ name: 'Dup', id: 'p_ops' }))).toBe('invalid_input');
      expect(await codeOf(s.projects.create({ name: 'Other', folders: ['/work/cook'] }))).toBe('folder_in_use');
      expect(await codeOf(s.projects.create({ name: 'Rel', folders: ['relative/path'] }))).toBe('invalid_folder');
      expect((await s.projects.update(a.id, { name: 'Kitchen' })).name).toBe('Kitchen');
      await s.projects.archive(b.id);
      expect((await s.projects.list()).map((p) => p.id)).toEqual([a.id]);
      expect((await s.projects.list({ includeArchived: true })).map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
      await s.sessions.create({ projectId: a.id, hidden: true });
      expect(await codeOf(s.projects.delete(a.id))).toBe('project_has_sessions');
      await s.projects.delete(b.id);
      expect(await s.projects.exists(b.id)).toBe(false);
    });
  });

  describe('sessions and lineage', () => {
    it('creates sessions with the lineage rules and typed errors of the store', async () => {
      const s = await fresh();
      const p = await s.projects.create({ id: 'p_a', name: 'A' });
      const root = await s.sessions.create({ id: 's_root', projectId: p.id, title: 'Root', messages: [{ role: 'user', content: 'hello' }] });
      expect(root).toMatchObject({ id: 's_root', projectId: 'p_a', lineage: 'root', parentSessionId: null, messageCount: 1, hidden: false });
      expect(await codeOf(s.sessions.create({ id: 's_root' }))).toBe('session_exists');
      expect(await codeOf(s.sessions.create({ projectId: 'p_none' }))).toBe('project_not_found');
      expect(await codeOf(s.sessions.create({ id: 'bad id!' }))).toBe('invalid_input');
      expect(await codeOf(s.sessions.create({ parentSessionId: 's_root' }))).toBe('invalid_lineage');
      expect(await codeOf(s.sessions.create({ lineage: 'branch' }))).toBe('invalid_lineage');
      expect(await codeOf(s.sessions.create({ lineage: 'compression', parentSessionId: 's_root', projectId: null }))).toBe('invalid_lineage');
      expect(await codeOf(s.sessions.create({ lineage: 'reset', parentSessionId: 's_nope' }))).toBe('session_not_found');
      const { previous, session: next } = await s.sessions.continueCompressed('s_root', { note: 'summary' });
      expect(previous.endReason).toBe('compression');
      expect(next).toMatchObject({ lineage: 'compression', parentSessionId: 's_root', projectId: 'p_a', title: 'Root' });
      expect(await codeOf(s.sessions.continueCompressed('s_root'))).toBe('session_already_compressed');
      const child = await s.sessions.delegate(next.id);
      expect(child).toMatchObject({ hidden: true, projectId: 'p_a', lineage: 'delegation' });
      const branch = await s.sessions.branch('s_root');
      expect(branch).toMatchObject({ lineage: 'branch', projectId: 'p_a', messageCount: 1 });
      expect(await s.sessions.conversationRoot(child.id)).toBe('s_root');
      expect((await s.sessions.conversation(next.id)).map((m) => m.id).sort()).toEqual(['s_root', next.id, child.id].sort());
      expect(await s.sessions.ownHistory(next.id)).toEqual(['s_root', next.id]);
      expect(await s.sessions.segments(next.id)).toEqual(['s_root', next.id]);
      expect(await codeOf(s.sessions.get('s_nope'))).toBe('session_not_found');
      expect(await s.sessions.find('s_nope')).toBeUndefined();
      expect((await s.sessions.getRecord('s_root')).projectId).toBe('p_a');
      await s.projects.archive('p_a');
      expect(await codeOf(s.sessions.create({ projectId: 'p_a' }))).toBe('project_archived');
      expect(await codeOf(s.sessions.reset(next.id))).toBe('project_archived');
      expect((await s.sessions.continueCompressed(next.id)).session.projectId).toBe('p_a');
    });

    it('a move carries the whole logical conversation; branches and resets stay', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_b', name: 'B' });
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      const cont = (await s.sessions.continueCompressed('s1')).session;
      const del = await s.sessions.delegate('s1');
      const br = await s.sessions.branch('s1');
      const rs = await s.sessions.reset('s1');
      const moved = await s.sessions.move(cont.id, 'p_b');
      expect(moved.previousProjectId).toBe('p_a');
      expect(moved.projectId).toBe('p_b');
      expect([...moved.sessionIds].sort()).toEqual(['s1', cont.id, del.id].sort());
      for (const id of ['s1', cont.id, del.id]) expect(await s.sessions.projectId(id)).toBe('p_b');
      for (const id of [br.id, rs.id]) expect(await s.sessions.projectId(id)).toBe('p_a');
      expect((await s.sessions.move('s1', null)).projectId).toBeNull();
      expect(await s.sessions.projectId(cont.id)).toBeNull();
      expect(await codeOf(s.sessions.move('s1', 'p_zz'))).toBe('project_not_found');
      expect(await codeOf(s.sessions.move('s_zz', 'p_a'))).toBe('session_not_found');
      await s.projects.archive('p_b');
      expect(await codeOf(s.sessions.move('s1', 'p_b'))).toBe('project_archived');
      // upsert: omitted projectId keeps, null clears, another id moves
      await s.sessions.upsert({ id: 's1', title: 'T' });
      expect(await s.sessions.projectId('s1')).toBeNull();
      await s.sessions.upsert({ id: 's1', projectId: 'p_a' });
      expect(await s.sessions.projectId(cont.id)).toBe('p_a');
      expect(await codeOf(s.sessions.upsert({ id: 's1', lineage: 'reset' }))).toBe('invalid_lineage');
      expect((await s.sessions.list({ projectId: 'p_a' })).map((x) => x.id).sort()).toEqual(['s1', cont.id, br.id, rs.id].sort());
    });

    it('racing a move against a compression leaves one project for the whole conversation', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_b', name: 'B' });
      for (let round = 0; round < 8; round++) {
        const root = await s.sessions.create({ id: `r${round}`, projectId: 'p_a' });
        const target = round % 2 === 0 ? 'p_b' : null;
        const [, cont] = await Promise.all([s.sessions.move(root.id, target), s.sessions.continueCompressed(root.id)]);
        const projects = await Promise.all([root.id, cont.session.id].map((id) => s.sessions.projectId(id)));
        expect(projects[1]).toBe(projects[0]);
        expect(projects[0]).toBe(target);
      }
    });
  });

  describe('messages', () => {
    it('append is idempotent per external id; edit, delete, rewind, compact, windows and pages keep visibility rules', async () => {
      const s = await fresh();
      await s.sessions.create({ id: 's1' });
      const first = await s.messages.append('s1', [
        { role: 'user', content: 'one', externalId: 'e1' },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
        { role: 'assistant', content: 'four' },
        { role: 'user', content: 'five' },
      ]);
      expect(first.inserted).toBe(5);
      const ids = first.messages.map((m) => m.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      const again = await s.messages.append('s1', [{ role: 'user', content: 'one again', externalId: 'e1' }]);
      expect(again).toMatchObject({ inserted: 0, skipped: 1 });
      expect(again.messages[0]!.id).toBe(ids[0]);
      expect(await codeOf(s.messages.append('s_nope', [{ role: 'user', content: 'x' }]))).toBe('session_not_found');
      expect(await codeOf(s.messages.append('s1', [{ role: 'wizard' as 'user', content: 'x' }]))).toBe('invalid_input');
      expect(await codeOf(s.messages.get(999_999))).toBe('message_not_found');
      expect(await codeOf(s.messages.get(0))).toBe('invalid_input');
      const edited = await s.messages.edit(ids[1]!, 'two edited');
      expect(edited.content).toBe('two edited');
      expect(edited.editedAt).not.toBeNull();
      expect((await s.messages.delete(ids[2]!)).visibility).toBe('deleted');
      expect(await codeOf(s.messages.edit(ids[2]!, 'x'))).toBe('invalid_input');
      expect(await s.messages.compact('s1', ids[1]!)).toBe(2);
      expect(await s.messages.rewind('s1', ids[3]!)).toBe(1);
      const visible = await s.messages.list('s1');
      expect(visible.map((m) => [m.id, m.visibility])).toEqual([
        [ids[0], 'compacted'],
        [ids[1], 'compacted'],
        [ids[3], 'live'],
      ]);
      expect((await s.messages.list('s1', { includeHidden: true })).length).toBe(5);
      const win = await s.messages.window('s1', ids[1]!, 1, 1);
      expect(win.messages.map((m) => m.id)).toEqual([ids[0], ids[1], ids[3]]);
      expect(win).toMatchObject({ moreBefore: false, moreAfter: false });
      expect(await codeOf(s.messages.window('s1', ids[2]!, 1, 1))).toBe('message_not_found');
      const page = await s.messages.page('s1', { at: 'newest' }, 2);
      expect(page.messages.map((m) => m.id)).toEqual([ids[1], ids[3]]);
      expect(page).toMatchObject({ hasOlder: true, hasNewer: false });
      const around = await s.messages.page('s1', { aroundMessageId: ids[4]! }, 2);
      expect(around.anchorVisible).toBe(false);
      expect((await s.sessions.get('s1')).messageCount).toBe(3);
    });

    it('reads across compression segments', async () => {
      const s = await fresh();
      await s.sessions.create({ id: 's1', messages: [1, 2, 3].map((i) => ({ role: 'user' as const, content: `a${i}` })) });
      const next = (await s.sessions.continueCompressed('s1')).session;
      const added = await s.messages.append(next.id, [4, 5].map((i) => ({ role: 'assistant' as const, content: `b${i}` })));
      const segments = await s.sessions.segments(next.id);
      const win = await s.messages.segmentWindow(segments, added.messages[0]!.id, 2, 1);
      expect(win.messages.map((m) => m.content)).toEqual(['a2', 'a3', 'b4', 'b5']);
      const ends = await s.messages.segmentsHeadTail(segments, 1, 1, { roles: ['assistant'] });
      expect(ends.head.map((m) => m.content)).toEqual(['b4', 'b5']);
      expect(ends.tail).toEqual([]);
      expect(ends.truncated).toBe(false);
    });
  });
}
