/**
 * Conformance of the embedding worker's planning and late writes (runs with the semantic rows):
 * ChunkStore.planWork copies a branch's chunks ready from its origin (same fingerprint, same
 * content hash, same ranges: nothing to embed); re-plans what edits, moves into a switched-on
 * project, unhiding, switching a project on again and a rebuild leave out of date; and
 * ClaimQueue.complete drops a late result whose session was hidden, moved out of its project (or
 * into one not switched on for the endpoint), switched off or deleted while the provider was
 * called, and keeps one whose session was moved into another project switched on for the endpoint:
 * found from the new project only (searches, counts and the cache's reads), nothing embedded twice.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FingerprintSpec, PlanWorkResult } from '../semantic.js';
import type { Storage } from '../storage.js';
import { type OpenFreshStorage, useStorages } from './harness.js';

const ENDPOINT = 'http://127.0.0.1:9/v1';
const OTHER_ENDPOINT = 'http://127.0.0.1:10/v1';
const SPEC: FingerprintSpec = { provider: 'openai-compatible', endpoint: ENDPOINT, model: 'm3', dims: 3, normalization: 'l2', chunkerVersion: 1 };
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function semanticOf(s: Storage) {
  if (!s.semantic) throw new Error('this storage carries no semantic rows');
  return s.semantic;
}

/** Runs planWork until it says nothing is left; the sum of what the steps did. One chunk per non-blank message. */
async function planAll(s: Storage, fp: number, projectId?: string): Promise<Omit<PlanWorkResult, 'more'>> {
  const total = { sessionsPlanned: 0, created: 0, reused: 0, removed: 0 };
  for (let i = 0; i < 1000; i++) {
    const r = await semanticOf(s).chunks.planWork({
      fingerprintId: fp,
      endpoint: ENDPOINT,
      roles: ['user', 'assistant'],
      split: (content) => (content.trim() === '' ? [] : [{ start: 0, end: content.length }]),
      hash: sha,
      ...(projectId !== undefined ? { projectId } : {}),
    });
    total.sessionsPlanned += r.sessionsPlanned;
    total.created += r.created;
    total.reused += r.reused;
    total.removed += r.removed;
    if (!r.more) return total;
  }
  throw new Error('planWork did not finish');
}

/** Claims and completes every claimable chunk with one vector; returns the message ids embedded. */
async function embedAll(s: Storage, fp: number): Promise<number[]> {
  const { claims } = semanticOf(s);
  const out: number[] = [];
  for (;;) {
    const work = await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 50, leaseMs: 60_000, maxAttempts: 3 });
    if (work.length === 0) return out.sort((a, b) => a - b);
    await claims.complete('w', work.map((chunk) => ({ chunk, vector: Float32Array.from([0.6, 0.8, 0]) })));
    out.push(...work.map((w) => w.messageId));
  }
}

/** A project's cache generation through ChunkStore.projectVectors (null where the adapter has none). */
async function generationOf(s: Storage, fp: number, projectId: string): Promise<number | null> {
  const source = semanticOf(s).chunks.projectVectors;
  if (!source) return null;
  return source.withProject(projectId, async (r) => (await r.plan(fp))?.generation ?? null);
}

/** The sessions of a project's allowed set as ChunkStore.projectVectors loads it (sorted). */
async function allowedSessions(s: Storage, fp: number, projectId: string): Promise<string[]> {
  const source = semanticOf(s).chunks.projectVectors;
  if (!source) return [];
  return source.withProject(projectId, async (r) => {
    const rows = await r.load(fp, SPEC.dims, 1000);
    if (!rows) throw new Error('allowed set over the limit');
    const used = new Set<string>();
    for (const segment of rows.segments) for (const i of segment.sessionIdx) used.add(rows.sessions[i]!);
    return [...used].sort();
  });
}

/** Registers the planning and late-write conformance tests. */
export function describeSemanticWorkConformance(open: OpenFreshStorage): void {
  const fresh = useStorages(open);
  describe('semantic planning and late writes', () => {
    it('a branch copies its origin\'s ready chunks with their vectors: nothing to embed; a copy edited later is embedded anew', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await semanticOf(s).chunks.setConsent('p_a', ENDPOINT, true);
      const fp = await semanticOf(s).chunks.ensureFingerprint(SPEC);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      await s.messages.append('s1', ['first words', 'second words', 'third words'].map((content) => ({ role: 'user' as const, content })));
      expect(await planAll(s, fp)).toMatchObject({ created: 3, reused: 0 });
      expect((await embedAll(s, fp)).length).toBe(3);
      const branch = await s.sessions.branch('s1', { id: 's1_branch' });
      const planned = await planAll(s, fp);
      expect(planned).toMatchObject({ created: 0, reused: 3 });
      expect(await embedAll(s, fp)).toEqual([]);
      expect(await semanticOf(s).chunks.counts(fp, 'p_a')).toEqual({ pending: 0, ready: 6, failed: 0 });
      const hits = await semanticOf(s).chunks.search({ kind: 'project', projectId: 'p_a', currentSessionId: null }, fp, Float32Array.from([0.6, 0.8, 0]), { limit: 10 });
      const copies = (await s.messages.list(branch.id)).map((m) => m.id);
      expect(hits.filter((h) => h.sessionId === branch.id).map((h) => h.messageId).sort((a, b) => a - b)).toEqual(copies);
      hits.forEach((h) => expect(h.score).toBeCloseTo(1, 4));
      // An edited copy no longer matches its origin: it is embedded, the origin keeps its vector.
      await s.messages.edit(copies[0]!, 'first words, edited in the branch');
      expect(await planAll(s, fp)).toMatchObject({ created: 1, reused: 0 });
      expect(await embedAll(s, fp)).toEqual([copies[0]!]);
    });

    it.each([
      { change: 'hidden', act: (s: Storage) => s.sessions.update('s1', { hidden: true }) },
      { change: 'moved out of its project', act: (s: Storage) => s.sessions.move('s1', null) },
      { change: 'moved to a project not switched on', act: (s: Storage) => s.sessions.move('s1', 'p_off') },
      {
        change: 'moved to a project switched on for another endpoint',
        act: async (s: Storage) => {
          await semanticOf(s).chunks.setConsent('p_off', OTHER_ENDPOINT, true);
          await s.sessions.move('s1', 'p_off');
        },
      },
      { change: 'switched off', act: (s: Storage) => semanticOf(s).chunks.setConsent('p_a', ENDPOINT, false) },
      { change: 'deleted', act: (s: Storage) => s.purges!.deleteConversation('s1').then(() => undefined) },
    ])('a late result for a session $change during the provider call never lands', async ({ change, act }) => {
      const s = await fresh();
      if (change === 'deleted' && !s.purges) return;
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_off', name: 'Off' });
      await semanticOf(s).chunks.setConsent('p_a', ENDPOINT, true);
      const fp = await semanticOf(s).chunks.ensureFingerprint(SPEC);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      await s.sessions.create({ id: 's2', projectId: 'p_a' });
      await s.messages.append('s1', [{ role: 'user', content: 'text of the changed session' }]);
      await s.messages.append('s2', [{ role: 'user', content: 'text of the other session' }]);
      await planAll(s, fp);
      const { claims, chunks } = semanticOf(s);
      const work = await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 10, leaseMs: 60_000, maxAttempts: 3 });
      expect(work.map((w) => w.sessionId).sort()).toEqual(['s1', 's2']);
      await act(s);
      const outcome = await claims.complete('w', work.map((chunk) => ({ chunk, vector: Float32Array.from([1, 0, 0]) })));
      expect(outcome).toEqual(change === 'switched off' ? { written: 0, dropped: 2 } : { written: 1, dropped: 1 });
      // Ready rows wherever the session went (its project, the other one, or its own history): only the other session's.
      const ownReady = (await chunks.search({ kind: 'own', sessionIds: ['s1'], currentSessionId: 'none' }, fp, Float32Array.from([1, 0, 0]), { limit: 5 })).length;
      const ready = (await chunks.counts(fp, 'p_a')).ready + (await chunks.counts(fp, 'p_off')).ready + ownReady;
      expect(ready).toBe(change === 'switched off' ? 0 : 1);
      // Nothing is left leased.
      expect(await claims.leased(fp)).toBe(0);
    });

    it('a late result for a session moved to another project switched on for the endpoint lands there: found from the new project, never from the old one', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_b', name: 'B' });
      const { claims, chunks } = semanticOf(s);
      await chunks.setConsent('p_a', ENDPOINT, true);
      await chunks.setConsent('p_b', ENDPOINT, true);
      const fp = await chunks.ensureFingerprint(SPEC);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      await s.sessions.create({ id: 's2', projectId: 'p_a' });
      const [moved] = (await s.messages.append('s1', [{ role: 'user', content: 'text of the moved session' }])).messages;
      const [stays] = (await s.messages.append('s2', [{ role: 'user', content: 'text of the other session' }])).messages;
      await planAll(s, fp);
      const work = await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 10, leaseMs: 60_000, maxAttempts: 3 });
      expect(work.map((w) => w.sessionId).sort()).toEqual(['s1', 's2']);
      const query = Float32Array.from([1, 0, 0]);
      const found = async (projectId: string) =>
        (await chunks.search({ kind: 'project', projectId, currentSessionId: null }, fp, query, { limit: 10 })).map((h) => [h.sessionId, h.messageId]);
      // Searched before (an adapter's cache holds both projects' sets from then on).
      expect(await found('p_a')).toEqual([]);
      expect(await found('p_b')).toEqual([]);
      // The text was sent under p_a's consent; p_b is switched on for the same endpoint, so the
      // vector is kept: it follows the session as the vectors of a moved conversation do.
      await s.sessions.move('s1', 'p_b');
      const generationBefore = await generationOf(s, fp, 'p_b');
      expect(await claims.complete('w', work.map((chunk) => ({ chunk, vector: Float32Array.from([1, 0, 0]) })))).toEqual({ written: 2, dropped: 0 });
      expect(await found('p_b')).toEqual([['s1', moved!.id]]);
      expect(await found('p_a')).toEqual([['s2', stays!.id]]);
      expect(await chunks.counts(fp, 'p_a')).toEqual({ pending: 0, ready: 1, failed: 0 });
      expect(await chunks.counts(fp, 'p_b')).toEqual({ pending: 0, ready: 1, failed: 0 });
      expect(await chunks.indexCounts(fp, 'p_a', ['user', 'assistant'])).toMatchObject({ pending: 0, ready: 1, failed: 0 });
      expect(await chunks.indexCounts(fp, 'p_b', ['user', 'assistant'])).toMatchObject({ pending: 0, ready: 1, failed: 0 });
      // The in-process cache's reads (where the adapter has them): the new vector changed p_b's
      // generation (a cached copy is rebuilt), p_a's allowed set and rescore read never give s1.
      if (chunks.projectVectors) {
        expect(await generationOf(s, fp, 'p_b')).not.toBe(generationBefore);
        expect(await allowedSessions(s, fp, 'p_a')).toEqual(['s2']);
        expect(await allowedSessions(s, fp, 'p_b')).toEqual(['s1']);
        const ids = work.map((w) => w.id);
        const read = (projectId: string) =>
          chunks.projectVectors!.withProject(projectId, async (r) => [...(await r.read(fp, ids, { currentSessionId: null })).values()].map((row) => row.sessionId));
        expect(await read('p_a')).toEqual(['s2']);
        expect(await read('p_b')).toEqual(['s1']);
      }
      // Not lost, not embedded twice: the move queued s1 for planning, which finds it ready.
      expect(await planAll(s, fp)).toMatchObject({ created: 0, reused: 0 });
      expect(await embedAll(s, fp)).toEqual([]);
      expect(await claims.leased(fp)).toBe(0);
      // Moved back: found from p_a again, never from p_b.
      await s.sessions.move('s1', 'p_a');
      expect((await found('p_a')).sort()).toEqual([['s1', moved!.id], ['s2', stays!.id]]);
      expect(await found('p_b')).toEqual([]);
      expect(await chunks.counts(fp, 'p_b')).toEqual({ pending: 0, ready: 0, failed: 0 });
    });

    it('planWork re-plans edits, moves into a switched-on project, unhiding, switching on again and a rebuild', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_off', name: 'Off' });
      await semanticOf(s).chunks.setConsent('p_a', ENDPOINT, true);
      const fp = await semanticOf(s).chunks.ensureFingerprint(SPEC);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      await s.sessions.create({ id: 's_hidden', projectId: 'p_a', hidden: true });
      await s.sessions.create({ id: 's_off', projectId: 'p_off' });
      const [m1] = (await s.messages.append('s1', [{ role: 'user', content: 'one' }, { role: 'user', content: '   ' }, { role: 'assistant', content: 'two' }])).messages;
      await s.messages.append('s_hidden', [{ role: 'user', content: 'hidden text' }]);
      await s.messages.append('s_off', [{ role: 'user', content: 'off text' }]);
      const rows = async () => (await semanticOf(s).chunks.counts(fp, 'p_a')).pending;
      expect(await planAll(s, fp)).toMatchObject({ created: 2 });
      expect(await planAll(s, fp)).toMatchObject({ created: 0, sessionsPlanned: 0 });
      await s.messages.edit(m1!.id, 'one, edited');
      expect(await planAll(s, fp)).toMatchObject({ created: 1 });
      await s.sessions.move('s_off', 'p_a');
      expect(await planAll(s, fp)).toMatchObject({ created: 1 });
      await s.sessions.update('s_hidden', { hidden: false });
      expect(await planAll(s, fp)).toMatchObject({ created: 1 });
      expect(await rows()).toBe(4);
      // Switched off, a message is written, switched on again: it is planned then.
      await semanticOf(s).chunks.setConsent('p_a', ENDPOINT, false);
      await s.messages.append('s1', [{ role: 'user', content: 'written while off' }]);
      expect(await planAll(s, fp)).toMatchObject({ created: 0 });
      await semanticOf(s).chunks.setConsent('p_a', ENDPOINT, true);
      expect(await planAll(s, fp)).toMatchObject({ created: 1 });
      // The rebuild drops every row of the project; the next planning makes them all again.
      expect(await semanticOf(s).chunks.dropChunks('p_a', fp)).toBe(5);
      expect(await planAll(s, fp, 'p_a')).toMatchObject({ created: 5 });
      expect(await rows()).toBe(5);
      expect(await planAll(s, fp)).toMatchObject({ created: 0 });
    });
  });
}
