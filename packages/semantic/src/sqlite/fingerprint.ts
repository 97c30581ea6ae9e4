/**
 * The SQLite rows of model fingerprints (`semantic_fingerprints`): created idempotently across
 * processes, looked up read-only, listed. What a fingerprint is and its key: ../fingerprint.ts.
 */
import type { RecallDatabase } from '@recall/schema';
import { fingerprintKey, type Fingerprint, type FingerprintFields } from '../fingerprint.js';

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
