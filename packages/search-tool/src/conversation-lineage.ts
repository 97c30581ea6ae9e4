/**
 * Lineage facts for results: the logical conversation a session belongs to (its root id) and the
 * ordered compression segments the caller may read, cached for one call. Segments are filtered
 * through the same scope gate as everything else, so a segment count never describes sessions
 * outside the caller's scope (compression chains share one project by invariant; the gate makes
 * that defence in depth). `prime(ids)` reads the lineage of many sessions in three batch reads
 * (segments, roots, then the segments' rows for the gate) — a bounded number of round trips on
 * PostgreSQL however many sessions a call touches.
 */
import type { SessionRecord, Storage } from '@recall/storage-ports';
import type { Lineage } from './result.js';

export interface LineageOf {
  (sessionId: string): Promise<Lineage>;
  prime(sessionIds: Iterable<string>): Promise<void>;
}

/** The scope gate lineage filters segments through; `prime` (optional) batches its reads. */
export type ReadableGate = ((sessionId: string) => Promise<SessionRecord | undefined>) & { prime?: (sessionIds: Iterable<string>) => Promise<void> };

export function lineageCache(storage: Storage, readable: ReadableGate): LineageOf {
  // Keyed by session: every segment of a chain shares one entry once the chain has been read.
  const bySession = new Map<string, Lineage>();
  const settle = async (sessionId: string, chain: readonly string[], root: string): Promise<Lineage> => {
    const segments: string[] = [];
    for (const id of chain) if (id === sessionId || (await readable(id)) !== undefined) segments.push(id);
    const lineage = { conversation_id: root, segments };
    for (const id of segments) bySession.set(id, lineage);
    bySession.set(sessionId, lineage);
    return lineage;
  };
  const prime = async (sessionIds: Iterable<string>): Promise<void> => {
    const missing = [...new Set(sessionIds)].filter((id) => !bySession.has(id));
    if (missing.length === 0) return;
    const chains = await storage.sessions.segmentsOf(missing);
    const roots = await storage.sessions.conversationRoots(missing);
    if (readable.prime) await readable.prime([...chains.values()].flat());
    for (const id of missing) {
      const root = roots.get(id);
      // An unknown session is left to the per-id path below, which throws as it always did.
      if (root !== undefined && !bySession.has(id)) await settle(id, chains.get(id) ?? [], root);
    }
  };
  const lineageOf = async (sessionId: string): Promise<Lineage> => {
    let lineage = bySession.get(sessionId);
    if (!lineage) {
      await prime([sessionId]);
      lineage = bySession.get(sessionId) ?? (await settle(sessionId, await storage.sessions.segments(sessionId), await storage.sessions.conversationRoot(sessionId)));
    }
    return lineage;
  };
  lineageOf.prime = prime;
  return lineageOf;
}
