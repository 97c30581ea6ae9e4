/**
 * Lineage facts for results: the logical conversation a session belongs to (its root id) and the
 * ordered compression segments the caller may read, cached for one call. Segments are filtered
 * through the same scope gate as everything else, so a segment count never describes sessions
 * outside the caller's scope (compression chains share one project by invariant; the gate makes
 * that defence in depth).
 */
import type { Storage } from '@recall/storage-ports';
import type { Lineage } from './result.js';
import type { SessionRecord } from '@recall/storage-ports';

export type LineageOf = (sessionId: string) => Promise<Lineage>;

export function lineageCache(storage: Storage, readable: (sessionId: string) => Promise<SessionRecord | undefined>): LineageOf {
  // Keyed by session: every segment of a chain shares one entry once the chain has been read.
  const bySession = new Map<string, Lineage>();
  return async (sessionId: string) => {
    let lineage = bySession.get(sessionId);
    if (!lineage) {
      const segments: string[] = [];
      for (const id of await storage.sessions.segments(sessionId)) if (id === sessionId || (await readable(id)) !== undefined) segments.push(id);
      lineage = { conversation_id: await storage.sessions.conversationRoot(sessionId), segments };
      for (const id of segments) bySession.set(id, lineage);
      bySession.set(sessionId, lineage);
    }
    return lineage;
  };
}
