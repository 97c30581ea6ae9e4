/**
 * Model fingerprints: the non-secret identity of an embedding configuration (provider, endpoint,
 * model, dims, normalisation, chunker version). Vectors of different fingerprints are never
 * compared; a configuration change creates a new row and the new index builds alongside the old
 * one. The key is the sha256 of the canonical JSON of exactly these fields — never an API key.
 */
import { createHash } from 'node:crypto';
import type { RecallDatabase } from '@recall/schema';
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

interface FingerprintRow {
  id: number;
  key: string;
  provider: string;
  endpoint: string;
  model: string;
  dims: number;
  normalization: 'l2';
  chunker_version: number;
  created_at: number;
}

function toFingerprint(r: FingerprintRow): Fingerprint {
  return { id: r.id, key: r.key, provider: r.provider, endpoint: r.endpoint, model: r.model, dims: r.dims, normalization: r.normalization, chunkerVersion: r.chunker_version, createdAt: r.created_at };
}

/** The row for these fields, created if missing (idempotent across processes). */
export function ensureFingerprint(db: RecallDatabase, fields: FingerprintFields): Fingerprint {
  const key = fingerprintKey(fields);
  db.raw
    .prepare('insert into semantic_fingerprints (key, provider, endpoint, model, dims, normalization, chunker_version) values (?, ?, ?, ?, ?, ?, ?) on conflict (key) do nothing')
    .run(key, fields.provider, fields.endpoint, fields.model, fields.dims, fields.normalization, fields.chunkerVersion);
  return toFingerprint(db.raw.prepare('select * from semantic_fingerprints where key = ?').get(key) as FingerprintRow);
}

/** The row for these fields if it exists (read-only callers never create one). */
export function findFingerprint(db: RecallDatabase, fields: FingerprintFields): Fingerprint | null {
  const row = db.raw.prepare('select * from semantic_fingerprints where key = ?').get(fingerprintKey(fields)) as FingerprintRow | undefined;
  return row ? toFingerprint(row) : null;
}

export function listFingerprints(db: RecallDatabase): Fingerprint[] {
  return (db.raw.prepare('select * from semantic_fingerprints order by id').all() as FingerprintRow[]).map(toFingerprint);
}
