/**
 * Conformance of the per-project semantic consent (runs when the storage carries the semantic
 * rows): `consentRecord` is the consent as stored — switched off, it keeps the embeddings endpoint,
 * the reranker and `enabledAt` it was given with, and only `enabled` turns false (every sender
 * checks `enabled` first, so nothing is sent; switching on again replaces the whole consent, a
 * consent without a reranker clearing the old one); switching off a project never switched on
 * records nothing (null). What a transfer reads (`TransferSource.consents`, `recall migrate`'s
 * source) is the same record, and a storage that imports it (`BulkImport.importConsents`) answers
 * `consentRecord` exactly as the source did.
 */
import { describe, expect, it } from 'vitest';
import type { ProjectConsentState } from '../semantic.js';
import type { Storage } from '../storage.js';
import type { TransferredConsent } from '../bulk.js';
import { type OpenFreshStorage, useStorages } from './harness.js';

const EMBED = 'http://127.0.0.1:9/v1';
const RERANK = 'http://127.0.0.1:9/rerank';
const OTHER_RERANK = 'http://127.0.0.1:10/rerank';

function chunksOf(s: Storage) {
  if (!s.semantic) throw new Error('this storage carries no semantic rows');
  return s.semantic.chunks;
}

/** A transferred row as consentRecord answers it (the port's endpoint is null when empty). */
const asRecord = (c: TransferredConsent): ProjectConsentState => ({
  enabled: c.enabled,
  endpoint: c.endpoint || null,
  rerankEndpoint: c.rerankEndpoint,
  enabledAt: c.enabledAt,
  updatedAt: c.updatedAt,
});

/** Runs `fn` and returns its result with the wall-clock window (ms) it ran in. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; from: number; to: number }> {
  const from = Date.now();
  const value = await fn();
  return { value, from, to: Date.now() };
}

/** Registers the consent conformance tests. */
export function describeConsentConformance(open: OpenFreshStorage): void {
  const fresh = useStorages(open);
  describe('semantic consent', () => {
    it('switched off after a reranker consent: the record keeps endpoint, reranker and enabledAt; switching on again replaces it', async () => {
      const s = await fresh();
      const chunks = chunksOf(s);
      await s.projects.create({ id: 'p_r', name: 'Reranked' });
      const on = await timed(() => chunks.setConsent('p_r', EMBED, true, RERANK));
      const first = await chunks.consentRecord('p_r');
      expect(first).toMatchObject({ enabled: true, endpoint: EMBED, rerankEndpoint: RERANK });
      expect(first!.enabledAt).toBeGreaterThanOrEqual(on.from);
      expect(first!.enabledAt).toBeLessThanOrEqual(on.to);
      expect(first!.updatedAt).toBe(first!.enabledAt);

      await new Promise((r) => setTimeout(r, 5));
      const off = await timed(() => chunks.setConsent('p_r', EMBED, false));
      const disabled = await chunks.consentRecord('p_r');
      expect(disabled).toEqual({ enabled: false, endpoint: EMBED, rerankEndpoint: RERANK, enabledAt: first!.enabledAt, updatedAt: disabled!.updatedAt });
      expect(disabled!.updatedAt).toBeGreaterThanOrEqual(off.from);
      expect(disabled!.updatedAt).toBeLessThanOrEqual(off.to);
      expect(await chunks.consent('p_r')).toEqual({ enabled: false, endpoint: EMBED });
      // Switched off twice: the same consent, only updatedAt may move.
      await chunks.setConsent('p_r', EMBED, false);
      expect(await chunks.consentRecord('p_r')).toMatchObject({ enabled: false, endpoint: EMBED, rerankEndpoint: RERANK, enabledAt: first!.enabledAt });

      await new Promise((r) => setTimeout(r, 5));
      const again = await timed(() => chunks.setConsent('p_r', EMBED, true));
      const plain = await chunks.consentRecord('p_r');
      expect(plain).toMatchObject({ enabled: true, endpoint: EMBED, rerankEndpoint: null });
      expect(plain!.enabledAt).toBeGreaterThanOrEqual(again.from);
      expect(plain!.enabledAt).toBeLessThanOrEqual(again.to);
      await chunks.setConsent('p_r', EMBED, true, OTHER_RERANK);
      expect(await chunks.consentRecord('p_r')).toMatchObject({ enabled: true, endpoint: EMBED, rerankEndpoint: OTHER_RERANK });
      await chunks.setConsent('p_r', EMBED, false);
      expect(await chunks.consentRecord('p_r')).toMatchObject({ enabled: false, endpoint: EMBED, rerankEndpoint: OTHER_RERANK });
    });

    it('a project never switched on has no record, also after being switched off', async () => {
      const s = await fresh();
      const chunks = chunksOf(s);
      await s.projects.create({ id: 'p_n', name: 'Never' });
      expect(await chunks.consentRecord('p_n')).toBeNull();
      await chunks.setConsent('p_n', EMBED, false);
      expect(await chunks.consentRecord('p_n')).toBeNull();
      expect(await chunks.consent('p_n')).toBeNull();
      if (s.transfer?.consents) expect(await s.transfer.consents()).toEqual([]);
    });

    it('a transfer reads the records consentRecord answers, and an import answers them the same', async () => {
      const s = await fresh();
      const chunks = chunksOf(s);
      for (const id of ['p_a_on', 'p_b_plain', 'p_c_off', 'p_d_never']) await s.projects.create({ id, name: id });
      await chunks.setConsent('p_a_on', EMBED, true, RERANK);
      await chunks.setConsent('p_b_plain', 'local:use-lite', true);
      await chunks.setConsent('p_c_off', EMBED, true, RERANK);
      await chunks.setConsent('p_c_off', EMBED, false);
      const records = new Map<string, ProjectConsentState | null>();
      for (const id of ['p_a_on', 'p_b_plain', 'p_c_off', 'p_d_never']) records.set(id, await chunks.consentRecord(id));
      expect(records.get('p_c_off')).toMatchObject({ enabled: false, endpoint: EMBED, rerankEndpoint: RERANK });
      expect(records.get('p_d_never')).toBeNull();
      if (!s.transfer?.consents) return;
      const transferred = await s.transfer.consents();
      expect(transferred.map((c) => c.projectId)).toEqual(['p_a_on', 'p_b_plain', 'p_c_off']);
      for (const c of transferred) expect(asRecord(c)).toEqual(records.get(c.projectId));

      const target = await fresh();
      if (!target.bulk?.importConsents) return;
      await target.bulk.importProjects(await s.transfer.projects());
      expect(await target.bulk.importConsents(transferred)).toBe(3);
      for (const [id, record] of records) expect(await chunksOf(target).consentRecord(id)).toEqual(record);
      if (target.transfer?.consents) expect(await target.transfer.consents()).toEqual(transferred);
    });
  });
}
