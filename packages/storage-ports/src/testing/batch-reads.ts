/**
 * Conformance: the batch reads (`sessions.findRecords`, `conversationRoots`, `segmentsOf`,
 * `messages.findMany`) answer exactly as their per-id reads do — for every lineage kind, unknown
 * ids, duplicates and an empty list — outside and inside a read scope. With `enforced` (the
 * backend limits a scoped read itself: PostgreSQL's row-level security), ids of another project
 * asked for inside a scope come back as nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Storage } from '../storage.js';
import { withReadScope } from '../storage.js';
import { codeOf, type OpenFreshStorage, useStorages } from './harness.js';

interface World {
  /** Sessions of project A (a compressed chain with a delegation and a branch), of project B, and a project-less chain. */
  a: string[];
  b: string[];
  none: string[];
  messagesA: number[];
  messagesB: number[];
}

async function seed(s: Storage): Promise<World> {
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  await s.sessions.create({ id: 's_a1', projectId: 'p_a', messages: [{ role: 'user', content: 'first segment' }] });
  const a2 = (await s.sessions.continueCompressed('s_a1', { id: 's_a2', note: 'summary one' })).session;
  const a3 = (await s.sessions.continueCompressed(a2.id, { id: 's_a3' })).session;
  await s.messages.append(a3.id, [{ role: 'assistant', content: 'third segment' }]);
  await s.sessions.delegate(a2.id, { id: 's_ad' });
  await s.sessions.branch('s_a1', { id: 's_ab' });
  await s.sessions.reset(a3.id, { id: 's_ar' });
  await s.sessions.create({ id: 's_b1', projectId: 'p_b', messages: [{ role: 'user', content: 'other project' }] });
  await s.sessions.continueCompressed('s_b1', { id: 's_b2', note: 'other summary' });
  await s.sessions.create({ id: 's_n1', projectId: null, messages: [{ role: 'user', content: 'no project' }] });
  await s.sessions.continueCompressed('s_n1', { id: 's_n2' });
  const messagesOf = async (ids: string[]) => (await Promise.all(ids.map((id) => s.messages.list(id, { includeHidden: true })))).flat().map((m) => m.id);
  const a = ['s_a1', 's_a2', 's_a3', 's_ad', 's_ab', 's_ar'];
  const b = ['s_b1', 's_b2'];
  return { a, b, none: ['s_n1', 's_n2'], messagesA: await messagesOf(a), messagesB: await messagesOf(b) };
}

/** The per-id answers, as a batch read must give them (absent = undefined / throws / empty). */
async function perId(s: Storage, sessionIds: readonly string[], messageIds: readonly number[]) {
  const records = new Map<string, unknown>();
  const roots = new Map<string, string>();
  const segments = new Map<string, string[]>();
  const messages = new Map<number, unknown>();
  for (const id of sessionIds) {
    const record = await s.sessions.findRecord(id);
    if (record) records.set(id, record);
    const root = await s.sessions.conversationRoot(id).catch(() => undefined);
    if (root !== undefined) roots.set(id, root);
    const chain = await s.sessions.segments(id);
    if (chain.length > 0) segments.set(id, chain);
  }
  for (const id of messageIds) {
    const m = await s.messages.find(id);
    if (m) messages.set(id, m);
  }
  return { records, roots, segments, messages };
}

async function batched(s: Storage, sessionIds: readonly string[], messageIds: readonly number[]) {
  return {
    records: await s.sessions.findRecords(sessionIds),
    roots: await s.sessions.conversationRoots(sessionIds),
    segments: await s.sessions.segmentsOf(sessionIds),
    messages: await s.messages.findMany(messageIds),
  };
}

/** Maps compared as sorted entry lists (a batch read promises no order). */
function entries(out: { records: Map<string, unknown>; roots: Map<string, string>; segments: Map<string, string[]>; messages: Map<number, unknown> }) {
  const sorted = <K, V>(m: Map<K, V>) => [...m.entries()].sort((x, y) => String(x[0]).localeCompare(String(y[0])));
  return { records: sorted(out.records), roots: sorted(out.roots), segments: sorted(out.segments), messages: sorted(out.messages) };
}

/** Registers the batch-read conformance tests. */
export function describeBatchReadConformance(open: OpenFreshStorage, options: { enforced?: boolean } = {}): void {
  const fresh = useStorages(open);

  describe('batch reads', () => {
    it('answer as the per-id reads do, for every lineage kind, unknown ids, duplicates and an empty list', async () => {
      const s = await fresh();
      const w = await seed(s);
      const table: Array<[name: string, sessions: string[], messages: number[]]> = [
        ['empty', [], []],
        ['project A', w.a, w.messagesA],
        ['every project and none', [...w.a, ...w.b, ...w.none], [...w.messagesA, ...w.messagesB]],
        ['unknown and duplicate ids', ['s_missing', 's_a3', 's_a3', 's_b2', 's_a1'], [999_999, w.messagesA[0]!, w.messagesA[0]!, -1, 1.5]],
      ];
      for (const [name, sessions, messages] of table) {
        const expected = await perId(s, sessions, messages);
        const out = await batched(s, sessions, messages);
        expect(entries(out), name).toEqual(entries(expected));
      }
      // windows: each request as window() answers it, in request order; an invisible anchor throws as window() does.
      const a1 = (await s.messages.list('s_a1')).map((m) => m.id);
      const a2 = (await s.messages.list('s_a2')).map((m) => m.id);
      const requests = [
        { sessionId: 's_a2', anchorId: a2[0]!, before: 2, after: 2 },
        { sessionId: 's_a1', anchorId: a1[0]!, before: 0, after: 1 },
        { sessionId: 's_a1', anchorId: a1[0]!, before: 3, after: 0 },
      ];
      const one = [];
      for (const r of requests) one.push(await s.messages.window(r.sessionId, r.anchorId, r.before, r.after));
      expect(await s.messages.windows(requests)).toEqual(one);
      expect(await s.messages.windows([])).toEqual([]);
      expect(await codeOf(s.messages.windows([requests[0]!, { sessionId: 's_a1', anchorId: w.messagesB[0]!, before: 1, after: 1 }]))).toBe('message_not_found');
      // Spot checks of the lineage rules the per-id reads encode.
      const out = await batched(s, ['s_a3', 's_ad', 's_ab', 's_ar', 's_n2'], []);
      expect(Object.fromEntries(out.roots)).toEqual({ s_a3: 's_a1', s_ad: 's_a1', s_ab: 's_ab', s_ar: 's_ar', s_n2: 's_n1' });
      expect(out.segments.get('s_a3')).toEqual(['s_a1', 's_a2', 's_a3']);
      expect(out.segments.get('s_ad')).toEqual(['s_ad']);
    });

    it('answer inside a read scope as the per-id reads do there', async () => {
      const s = await fresh();
      const w = await seed(s);
      const table: Array<[scope: Parameters<typeof withReadScope>[1], sessions: string[], messages: number[]]> = [
        [{ kind: 'project', projectId: 'p_a' }, w.a, w.messagesA],
        [{ kind: 'sessions', sessionIds: w.none }, w.none, []],
      ];
      for (const [scope, sessions, messages] of table) {
        const inside = await withReadScope(s, scope, async (scoped) => ({ per: entries(await perId(scoped, sessions, messages)), batch: entries(await batched(scoped, sessions, messages)) }));
        expect(inside.batch, JSON.stringify(scope)).toEqual(inside.per);
        expect(inside.batch, JSON.stringify(scope)).toEqual(entries(await batched(s, sessions, messages)));
      }
    });

    if (!options.enforced) return;

    it('ids of another project asked for inside a scope come back as nothing', async () => {
      const s = await fresh();
      const w = await seed(s);
      const table: Array<[scope: Parameters<typeof withReadScope>[1], foreign: string[], foreignMessages: number[]]> = [
        [{ kind: 'project', projectId: 'p_a' }, [...w.b, ...w.none], w.messagesB],
        [{ kind: 'sessions', sessionIds: w.none }, [...w.a, ...w.b], [...w.messagesA, ...w.messagesB]],
      ];
      for (const [scope, foreign, foreignMessages] of table) {
        const seen = await withReadScope(s, scope, async (scoped) => entries(await batched(scoped, foreign, foreignMessages)));
        expect(seen, JSON.stringify(scope)).toEqual({ records: [], roots: [], segments: [], messages: [] });
      }
      // Outside any scope the same ids are there (the reads above could see them).
      expect((await s.sessions.findRecords(w.b)).size).toBe(w.b.length);
      expect((await s.messages.findMany(w.messagesB)).size).toBe(w.messagesB.length);
    });
  });
}
