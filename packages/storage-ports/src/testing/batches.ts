/**
 * Conformance: WriteBatches (one transaction per program, savepoint-isolated steps, bulk mode rolls
 * back as a whole) and MessageStore.existingExternalIds behave the same on every adapter.
 */
import { describe, expect, it } from 'vitest';
import { batchCall, batchIsolate, type BatchStores } from '../batches.js';
import { codeOf, type OpenFreshStorage, useStorages } from './harness.js';

/** Registers the batch and external-id conformance tests. */
export function describeBatchConformance(open: OpenFreshStorage): void {
  const fresh = useStorages(open);

  describe('write batches', () => {
    it('commits a program as one transaction and rolls it back as one when it throws', async () => {
      const s = await fresh();
      const batches = s.batches!;
      expect(batches).toBeDefined();
      const made = await batches.run(function* (tx: BatchStores) {
        const p = yield* batchCall(tx.projects.create({ id: 'p_a', name: 'A' }));
        const session = yield* batchCall(tx.sessions.create({ id: 's1', projectId: p.id }));
        const out = yield* batchCall(tx.messages.append(session.id, [{ role: 'user', content: 'one', externalId: 'e1' }, { role: 'assistant', content: 'two', externalId: 'e2' }]));
        return out.inserted;
      });
      expect(made).toBe(2);
      expect((await s.sessions.get('s1')).messageCount).toBe(2);
      for (const bulk of [false, true]) {
        const failed = batches.run(function* (tx: BatchStores) {
          yield* batchCall(tx.sessions.create({ id: `s_gone_${bulk}` }));
          yield* batchCall(tx.messages.append('s1', [{ role: 'user', content: 'three', externalId: `e3_${bulk}` }]));
          yield* batchCall(tx.sessions.create({ id: 's1' })); // refused: session_exists
          return 'unreachable';
        }, { bulk });
        expect(await codeOf(failed)).toBe('session_exists');
        expect(await s.sessions.find(`s_gone_${bulk}`)).toBeUndefined();
        expect((await s.sessions.get('s1')).messageCount).toBe(2);
      }
    });

    it('undoes only an isolated step that throws, and the program goes on', async () => {
      const s = await fresh();
      await s.sessions.create({ id: 's1' });
      const codes = await s.batches!.run(function* (tx: BatchStores) {
        const seen: string[] = [];
        for (const id of ['s2', 's1', 's3']) {
          try {
            yield* batchIsolate(
              (function* () {
                yield* batchCall(tx.messages.append('s1', [{ role: 'user', content: `before ${id}`, externalId: `x_${id}` }]));
                yield* batchCall(tx.sessions.create({ id }));
              })(),
            );
            seen.push('ok');
          } catch (error) {
            seen.push(String((error as { code?: unknown }).code));
          }
        }
        return seen;
      });
      expect(codes).toEqual(['ok', 'session_exists', 'ok']);
      expect((await s.sessions.find('s3'))?.id).toBe('s3');
      // The refused step's append was undone with it; the other two steps' appends stayed.
      expect((await s.messages.existingExternalIds('s1', ['x_s2', 'x_s1', 'x_s3'])).sort()).toEqual(['x_s2', 'x_s3']);
    });
  });

  describe('external ids', () => {
    it('existingExternalIds answers which ids a session holds, in input order without repeats', async () => {
      const s = await fresh();
      await s.sessions.create({ id: 's1', messages: [{ role: 'user', content: 'a', externalId: 'a' }, { role: 'user', content: 'b', externalId: 'b' }] });
      await s.sessions.create({ id: 's2', messages: [{ role: 'user', content: 'c', externalId: 'c' }] });
      await s.messages.delete((await s.messages.list('s1'))[1]!.id);
      expect(await s.messages.existingExternalIds('s1', ['c', 'b', 'a', 'b', 'zz'])).toEqual(['b', 'a']);
      expect(await s.messages.existingExternalIds('s_unknown', ['a'])).toEqual([]);
      expect(await s.messages.existingExternalIds('s1', [])).toEqual([]);
    });
  });
}
