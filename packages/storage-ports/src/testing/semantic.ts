/**
 * Conformance of the semantic rows (runs when the storage carries them): the allowed-set property —
 * the exact top-k over the allowed set equals a brute-force ranking of the model's own allowed set
 * (caller's project — or a project-less own history of sessions moved out — visible, ready, role
 * filter, the caller's own live messages out), fingerprints
 * of different dimensions coexist — and the claim rules: two workers claiming concurrently get
 * disjoint chunks and together every chunk exactly once; late results never land on edited or
 * deleted messages, nor after the lease was lost.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { MessageRole } from '@recall/rpc-contract';
import { describe, expect, it } from 'vitest';
import type { FingerprintSpec } from '../semantic.js';
import type { Storage } from '../storage.js';
import { type OpenFreshStorage, useStorages } from './harness.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const spec = (dims: number, endpoint = 'http://127.0.0.1:9/v1'): FingerprintSpec => ({ provider: 'openai-compatible', endpoint, model: `m${dims}`, dims, normalization: 'l2', chunkerVersion: 1 });

function unit(values: readonly number[]): Float32Array {
  const v = Float32Array.from(values);
  const n = Math.hypot(...v) || 1;
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / n;
  return v;
}

function semanticOf(s: Storage) {
  if (!s.semantic) throw new Error('this storage carries no semantic rows');
  return s.semantic;
}

/** Plans one chunk per message and embeds it through claim/complete with the given vectors. */
async function embedAll(s: Storage, fp: number, endpoint: string, messages: ReadonlyArray<{ id: number; content: string; vector: Float32Array }>): Promise<void> {
  const { chunks, claims } = semanticOf(s);
  await chunks.plan(
    fp,
    messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })),
  );
  const byMessage = new Map(messages.map((m) => [m.id, m.vector]));
  for (;;) {
    const work = await claims.claim({ fingerprintId: fp, endpoint, owner: 'w-embed', limit: 100, leaseMs: 60_000, maxAttempts: 3 });
    if (work.length === 0) break;
    await claims.complete(
      'w-embed',
      work.map((chunk) => ({ chunk, vector: byMessage.get(chunk.messageId)! })),
    );
  }
}

/** Registers the semantic conformance tests (skipped by the caller when the storage has no semantic part). */
export function describeSemanticConformance(open: OpenFreshStorage, options: { numRuns?: number } = {}): void {
  const fresh = useStorages(open);
  describe('semantic rows', () => {
    it('allowed-set property: the exact top-k equals brute force over the model allowed set', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      let run = 0;
      let ownFound = 0; // runs whose own-history search found something (the branch must be exercised)
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({ project: fc.option(fc.nat(1), { nil: null }), hidden: fc.boolean(), movedOut: fc.boolean(), messages: fc.array(fc.record({ v: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 3, maxLength: 3 }), role: fc.constantFrom<MessageRole>('user', 'assistant'), visibility: fc.constantFrom('live', 'compacted', 'rewound', 'deleted' as const) }), { maxLength: 4 }) }),
            { minLength: 1, maxLength: 5 },
          ),
          fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 3, maxLength: 3 }),
          fc.option(fc.constantFrom<MessageRole>('user', 'assistant'), { nil: undefined }),
          fc.nat(),
          async (world, q, role, callerPick) => {
            run++;
            const projects = [`p_v${run}a`, `p_v${run}b`];
            for (const id of projects) {
              await s.projects.create({ id, name: id });
              await semanticOf(s).chunks.setConsent(id, endpoint, true);
            }
            const fp = await semanticOf(s).chunks.ensureFingerprint(spec(3, endpoint));
            const rows: Array<{ id: number; sessionId: string; project: string | null; hidden: boolean; role: MessageRole; visibility: string; vector: Float32Array; content: string }> = [];
            for (const [i, w] of world.entries()) {
              const sessionId = `v${run}s${i}`;
              const project = w.project === null ? null : projects[w.project]!;
              await s.sessions.create({ id: sessionId, projectId: project, hidden: w.hidden });
              for (const [j, m] of w.messages.entries()) {
                const content = `message ${run}/${i}/${j}`;
                const out = await s.messages.append(sessionId, [{ role: m.role, content }]);
                rows.push({ id: out.messages[0]!.id, sessionId, project, hidden: w.hidden, role: m.role, visibility: m.visibility, vector: unit(m.v.every((x) => x === 0) ? [1, 0, 0] : m.v), content });
              }
            }
            // embed while every project is visible and switched on, then change visibility
            await embedAll(s, fp, endpoint, rows.filter((r) => !r.hidden && r.project !== null));
            for (const r of rows) {
              if (r.visibility === 'deleted') await s.messages.delete(r.id);
              if (r.visibility === 'compacted') await s.messages.compact(r.sessionId, r.id);
            }
            for (const r of rows.filter((x) => x.visibility === 'rewound')) {
              // rewind to the message before it in its session, if any
              const earlier = rows.filter((x) => x.sessionId === r.sessionId && x.id < r.id);
              if (earlier.length > 0) await s.messages.rewind(r.sessionId, earlier[earlier.length - 1]!.id);
              else await s.messages.delete(r.id);
            }
            // Sessions moved out of their project keep their vectors: their own history's allowed set.
            const moved = new Set<string>();
            for (const [i, w] of world.entries()) {
              if (!w.movedOut || w.project === null) continue;
              await s.sessions.move(`v${run}s${i}`, null);
              moved.add(`v${run}s${i}`);
            }
            for (const r of rows) if (moved.has(r.sessionId)) r.project = null;
            const now = new Map<number, string>();
            for (const r of rows) now.set(r.id, (await s.messages.get(r.id)).visibility);
            const asker = projects[0]!;
            const callerSessions = rows.filter((r) => r.project === asker).map((r) => r.sessionId);
            const caller = callerSessions.length > 0 ? callerSessions[callerPick % callerSessions.length]! : null;
            const query = unit(q.every((x) => x === 0) ? [0, 1, 0] : q);
            const hits = await semanticOf(s).chunks.search({ kind: 'project', projectId: asker, currentSessionId: caller }, fp, query, { limit: 5, ...(role ? { roles: [role] } : {}) });
            const allowed = rows.filter(
              (r) =>
                r.project === asker &&
                !r.hidden &&
                ['live', 'compacted'].includes(now.get(r.id)!) &&
                (role === undefined || r.role === role) &&
                !(r.sessionId === caller && now.get(r.id) === 'live'),
            );
            for (const h of hits) expect(allowed.map((r) => r.id)).toContain(h.messageId);
            const dot = (v: Float32Array) => v[0]! * query[0]! + v[1]! * query[1]! + v[2]! * query[2]!;
            const best = allowed.map((r) => dot(r.vector)).sort((a, b) => b - a).slice(0, 5);
            expect(hits.length).toBe(Math.min(5, allowed.length));
            hits.forEach((h, i) => expect(h.score).toBeCloseTo(best[i]!, 4));
            // Own compression history (no project): only the listed project-less sessions, visible, roles, the caller's live messages out.
            const own = [...moved];
            if (own.length > 0) {
              const ownCaller = callerPick % 2 === 0 ? 'v-outside' : own[callerPick % own.length]!; // a caller outside the list, or one of its sessions
              const ownHits = await semanticOf(s).chunks.search({ kind: 'own', sessionIds: own, currentSessionId: ownCaller }, fp, query, { limit: 5, ...(role ? { roles: [role] } : {}) });
              const ownAllowed = rows.filter(
                (r) =>
                  r.project === null &&
                  own.includes(r.sessionId) &&
                  !r.hidden &&
                  ['live', 'compacted'].includes(now.get(r.id)!) &&
                  (role === undefined || r.role === role) &&
                  !(r.sessionId === ownCaller && now.get(r.id) === 'live'),
              );
              for (const h of ownHits) expect(ownAllowed.map((r) => r.id)).toContain(h.messageId);
              const ownBest = ownAllowed.map((r) => dot(r.vector)).sort((a, b) => b - a).slice(0, 5);
              expect(ownHits.length).toBe(Math.min(5, ownAllowed.length));
              ownHits.forEach((h, i) => expect(h.score).toBeCloseTo(ownBest[i]!, 4));
              if (ownHits.length > 0) ownFound++;
            }
            // An empty own history sees nothing.
            expect(await semanticOf(s).chunks.search({ kind: 'own', sessionIds: [], currentSessionId: 'none' }, fp, query, { limit: 5 })).toEqual([]);
          },
        ),
        {
          numRuns: options.numRuns ?? 15,
          // One world that surely has an own history with vectors (a session moved out of its project).
          examples: [
            [
              [
                { project: 0, hidden: false, movedOut: true, messages: [{ v: [1, 0, 0], role: 'user', visibility: 'live' }, { v: [0, 1, 0], role: 'assistant', visibility: 'compacted' }] },
                { project: 0, hidden: false, movedOut: false, messages: [{ v: [1, 1, 0], role: 'user', visibility: 'live' }] },
              ],
              [1, 0, 0],
              undefined,
              0,
            ],
          ],
        },
      );
      expect(ownFound).toBeGreaterThan(0);
    });

    it('exact score ties rank by message id, then chunk id, across roles and sessions, whatever the limit', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      const { chunks, claims } = semanticOf(s);
      await s.projects.create({ id: 'p_t', name: 'T' });
      await chunks.setConsent('p_t', endpoint, true);
      await s.sessions.create({ id: 'st1', projectId: 'p_t' });
      await s.sessions.create({ id: 'st2', projectId: 'p_t' });
      const fp = await chunks.ensureFingerprint(spec(3, endpoint));
      const messages: Array<{ id: number; content: string; role: MessageRole; sessionId: string }> = [];
      for (let i = 0; i < 7; i++) {
        const role: MessageRole = i % 3 === 0 ? 'assistant' : 'user';
        const sessionId = i % 2 ? 'st2' : 'st1';
        const m = (await s.messages.append(sessionId, [{ role, content: `tied message ${i}` }])).messages[0]!;
        messages.push({ id: m.id, content: m.content, role, sessionId });
      }
      // Three chunks for messages 0 and 3, planned chunk index 2, then 1, then 0: the lowest chunk id
      // is the last range (a scan in chunk-index order would cut it off at k = 2).
      const three = new Set([messages[0]!.id, messages[3]!.id]);
      for (const index of [2, 1]) await chunks.plan(fp, messages.filter((m) => three.has(m.id)).map((m) => ({ messageId: m.id, chunkIndex: index, start: 4 * index, end: 4 * index + 4, contentHash: sha(m.content) })));
      await chunks.plan(fp, messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: 4, contentHash: sha(m.content) })));
      for (;;) {
        const work = await claims.claim({ fingerprintId: fp, endpoint, owner: 'w-ties', limit: 100, leaseMs: 60_000, maxAttempts: 3 });
        if (work.length === 0) break;
        await claims.complete('w-ties', work.map((chunk) => ({ chunk, vector: unit([1, 2, 3]) }))); // every chunk the same vector
      }
      for (const roles of [undefined, ['user'], ['assistant']] as Array<MessageRole[] | undefined>) {
        for (const caller of [null, 'st1']) {
          const allowed = messages.filter((m) => (!roles || roles.includes(m.role)) && m.sessionId !== caller);
          for (let limit = 1; limit <= allowed.length + 1; limit++) {
            const hits = await chunks.search({ kind: 'project', projectId: 'p_t', currentSessionId: caller }, fp, unit([3, 1, 2]), { limit, ...(roles ? { roles } : {}) });
            expect(hits.map((h) => ({ id: h.messageId, session: h.sessionId, start: h.start }))).toEqual(allowed.slice(0, limit).map((m) => ({ id: m.id, session: m.sessionId, start: three.has(m.id) ? 8 : 0 })));
          }
        }
      }
    });

    it('fingerprints of different dimensions coexist', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      await s.projects.create({ id: 'p_a', name: 'A' });
      await semanticOf(s).chunks.setConsent('p_a', endpoint, true);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      const m = (await s.messages.append('s1', [{ role: 'user', content: 'hello vectors' }])).messages[0]!;
      const fp3 = await semanticOf(s).chunks.ensureFingerprint(spec(3, endpoint));
      const fp5 = await semanticOf(s).chunks.ensureFingerprint(spec(5, endpoint));
      expect(fp5).not.toBe(fp3);
      expect(await semanticOf(s).chunks.ensureFingerprint(spec(3, endpoint))).toBe(fp3);
      await embedAll(s, fp3, endpoint, [{ id: m.id, content: m.content, vector: unit([1, 2, 3]) }]);
      await embedAll(s, fp5, endpoint, [{ id: m.id, content: m.content, vector: unit([1, 0, 0, 0, 1]) }]);
      const h3 = await semanticOf(s).chunks.search({ kind: 'project', projectId: 'p_a', currentSessionId: null }, fp3, unit([1, 2, 3]), { limit: 3 });
      const h5 = await semanticOf(s).chunks.search({ kind: 'project', projectId: 'p_a', currentSessionId: null }, fp5, unit([1, 0, 0, 0, 1]), { limit: 3 });
      expect(h3.map((h) => [h.messageId, Math.round(h.score * 1000)])).toEqual([[m.id, 1000]]);
      expect(h5.map((h) => [h.messageId, Math.round(h.score * 1000)])).toEqual([[m.id, 1000]]);
      expect(await semanticOf(s).chunks.counts(fp5, 'p_a')).toEqual({ pending: 0, ready: 1, failed: 0 });
    });

    it('consent and fingerprints read back; a dated chunk search keeps to its range', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      const { chunks } = semanticOf(s);
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_b', name: 'B' });
      expect(await chunks.consent('p_a')).toBeNull();
      expect(await chunks.findFingerprint(spec(3, endpoint))).toBeNull();
      await chunks.setConsent('p_a', endpoint, true);
      expect(await chunks.consent('p_a')).toEqual({ enabled: true, endpoint });
      await chunks.setConsent('p_a', endpoint, false);
      expect(await chunks.consent('p_a')).toEqual({ enabled: false, endpoint });
      await chunks.setConsent('p_a', endpoint, true);
      expect(await chunks.consent('p_b')).toBeNull();
      const fp = await chunks.ensureFingerprint(spec(3, endpoint));
      expect(await chunks.findFingerprint(spec(3, endpoint))).toBe(fp);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      const t0 = Date.UTC(2026, 0, 1);
      const out = await s.messages.append('s1', [
        { role: 'user', content: 'old vectors', createdAt: t0 },
        { role: 'user', content: 'new vectors', createdAt: t0 + 86_400_000 },
      ]);
      const [old, recent] = out.messages;
      await embedAll(s, fp, endpoint, [
        { id: old!.id, content: old!.content, vector: unit([1, 0, 0]) },
        { id: recent!.id, content: recent!.content, vector: unit([1, 1, 0]) },
      ]);
      const scope = { kind: 'project', projectId: 'p_a', currentSessionId: null } as const;
      const idsOf = async (range: { since?: number; until?: number }) => (await chunks.search(scope, fp, unit([1, 0, 0]), { limit: 5, ...range })).map((h) => h.messageId);
      expect(await idsOf({})).toEqual([old!.id, recent!.id]);
      expect(await idsOf({ since: t0 + 1 })).toEqual([recent!.id]);
      expect(await idsOf({ until: t0 + 1 })).toEqual([old!.id]);
    });

    it('two workers claiming concurrently get every chunk exactly once; late results never land on changed messages', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_off', name: 'Off' });
      await semanticOf(s).chunks.setConsent('p_a', endpoint, true);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      await s.sessions.create({ id: 's_off', projectId: 'p_off' });
      const msgs = (await s.messages.append('s1', Array.from({ length: 40 }, (_, i) => ({ role: 'user' as const, content: `chunk text ${i}` })))).messages;
      const off = (await s.messages.append('s_off', [{ role: 'user', content: 'not consented' }])).messages;
      const fp = await semanticOf(s).chunks.ensureFingerprint(spec(3, endpoint));
      const planned = await semanticOf(s).chunks.plan(fp, [...msgs, ...off].map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
      expect(planned).toBe(41);
      expect(await semanticOf(s).chunks.plan(fp, [{ messageId: msgs[0]!.id, chunkIndex: 0, start: 0, end: 5, contentHash: sha(msgs[0]!.content) }])).toBe(0);
      const claimed = new Map<string, number[]>();
      const worker = async (owner: string) => {
        const mine: number[] = [];
        for (;;) {
          const work = await semanticOf(s).claims.claim({ fingerprintId: fp, endpoint, owner, limit: 3, leaseMs: 60_000, maxAttempts: 3 });
          if (work.length === 0) break;
          mine.push(...work.map((w) => w.messageId));
          await semanticOf(s).claims.release(owner, []);
          await new Promise((r) => setTimeout(r, 1));
        }
        claimed.set(owner, mine);
      };
      await Promise.all([worker('w1'), worker('w2')]);
      const all = [...claimed.get('w1')!, ...claimed.get('w2')!].sort((a, b) => a - b);
      expect(all).toEqual(msgs.map((m) => m.id).sort((a, b) => a - b));
      // Late results: an edited and a deleted message drop, a lost lease drops, the rest land.
      await s.sessions.create({ id: 's2', projectId: 'p_a' });
      const late = (await s.messages.append('s2', [0, 1, 2, 3].map((i) => ({ role: 'user' as const, content: `late ${i}` })))).messages;
      await semanticOf(s).chunks.plan(fp, late.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
      const work = await semanticOf(s).claims.claim({ fingerprintId: fp, endpoint, owner: 'w3', limit: 10, leaseMs: 60_000, maxAttempts: 3 });
      expect(work.map((w) => w.messageId).sort((a, b) => a - b)).toEqual(late.map((m) => m.id));
      expect(work.find((w) => w.messageId === late[0]!.id)!.text).toBe('late 0');
      await s.messages.edit(late[0]!.id, 'late 0 edited');
      await s.messages.delete(late[1]!.id);
      await semanticOf(s).claims.release('w3', [work.find((w) => w.messageId === late[2]!.id)!.id]);
      const outcome = await semanticOf(s).claims.complete('w3', work.map((chunk) => ({ chunk, vector: unit([1, 1, 1]) })));
      expect(outcome).toEqual({ written: 1, dropped: 3 });
      const hits = await semanticOf(s).chunks.search({ kind: 'project', projectId: 'p_a', currentSessionId: null }, fp, unit([1, 1, 1]), { limit: 10 });
      expect(hits.map((h) => h.messageId)).toEqual([late[3]!.id]);
      // failures count attempts and free the lease
      const again = await semanticOf(s).claims.claim({ fingerprintId: fp, endpoint, owner: 'w4', limit: 10, leaseMs: 60_000, maxAttempts: 3 });
      await semanticOf(s).claims.fail('w4', again.map((w) => w.id), 'provider said no');
      expect((await semanticOf(s).chunks.counts(fp, 'p_a')).failed).toBe(again.length);
    });

    it('reclaim frees expired leases and the leases of dead owners (never live ones); the old owner\'s late result drops', async () => {
      const s = await fresh();
      const endpoint = 'http://127.0.0.1:9/v1';
      await s.projects.create({ id: 'p_a', name: 'A' });
      await semanticOf(s).chunks.setConsent('p_a', endpoint, true);
      await s.sessions.create({ id: 's1', projectId: 'p_a' });
      const msgs = (await s.messages.append('s1', [0, 1, 2, 3, 4, 5].map((i) => ({ role: 'user' as const, content: `lease ${i}` })))).messages;
      const fp = await semanticOf(s).chunks.ensureFingerprint(spec(3, endpoint));
      await semanticOf(s).chunks.plan(fp, msgs.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
      const { claims } = semanticOf(s);
      const claim = (owner: string, limit: number, leaseMs = 60_000) => claims.claim({ fingerprintId: fp, endpoint, owner, limit, leaseMs, maxAttempts: 3 });
      const dead = await claim('host:dead', 2);
      const live = await claim('host:live', 2);
      const short = await claim('host:short', 2, 20_000);
      expect([dead.length, live.length, short.length]).toEqual([2, 2, 2]);
      expect(await claim('other', 10)).toEqual([]);
      const now = Date.now() + 30_000; // past the 20 s leases, before the 60 s ones
      expect(await claims.reclaim([], now)).toBe(2); // the expired ones only
      expect(await claims.reclaim(['host:dead', 'host:dead'], now)).toBe(2);
      expect(await claims.reclaim(['host:dead', 'nobody'], now)).toBe(0);
      const taken = await claim('heir', 10);
      expect(taken.map((w) => w.messageId).sort((a, b) => a - b)).toEqual([...dead, ...short].map((w) => w.messageId).sort((a, b) => a - b));
      expect(await claims.complete('host:dead', dead.map((chunk) => ({ chunk, vector: unit([1, 0, 0]) })))).toEqual({ written: 0, dropped: 2 });
      expect(await claims.complete('host:live', live.map((chunk) => ({ chunk, vector: unit([0, 1, 0]) })))).toEqual({ written: 2, dropped: 0 });
    });
  });
}
