/**
 * Model fingerprints: the non-secret identity of an embedding configuration (provider, endpoint,
 * model, dims, normalisation, chunker version). Vectors of different fingerprints are never
 * compared; a configuration change creates a new row and the new index builds alongside the old
 * one. The key is the sha256 of the canonical JSON of exactly these fields — never an API key.
 * The rows live in each adapter (sqlite/fingerprint.ts; PostgreSQL: ChunkStore.ensureFingerprint).
 */
import { createHash } from 'node:crypto';
import { CHUNKER_VERSION } from './chunker.js';
import type { ProviderInfo } from './provider.js';

/** What identifies a model's vectors: provider, endpoint, model, dims, normalisation, chunker version. */
export interface FingerprintFields {
  provider: string;
  endpoint: string;
  model: string;
  dims: number;
  normalization: 'l2';
  chunkerVersion: number;
}

/** A stored model fingerprint: vectors are only ever compared within one fingerprint (`id`). */
export interface Fingerprint extends FingerprintFields {
  id: number;
  key: string;
  createdAt: number;
}

/** The fingerprint fields of a provider (`normalization: 'l2'`, the current `CHUNKER_VERSION`). */
export function fingerprintFields(info: Pick<ProviderInfo, 'provider' | 'endpoint' | 'model' | 'dims'>): FingerprintFields {
  return { provider: info.provider, endpoint: info.endpoint, model: info.model, dims: info.dims, normalization: 'l2', chunkerVersion: CHUNKER_VERSION };
}

/** sha256 hex of the canonical JSON (fixed key order) of the fields. */
export function fingerprintKey(f: FingerprintFields): string {
  const canonical = JSON.stringify([
    ['chunker_version', f.chunkerVersion],
    ['dims', f.dims],
    ['endpoint', f.endpoint],
    ['model', f.model],
    ['normalization', f.normalization],
    ['provider', f.provider],
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
