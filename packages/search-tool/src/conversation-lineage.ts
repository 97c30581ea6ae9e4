/**
 * Lineage facts for results: the logical conversation a session belongs to (its root id) and the
 * ordered compression segments the caller may read, cached for one call. Segments are filtered
 * through the same scope gate as everything else, so a segment count never describes sessions
 * outside the caller's scope (compression chains share one project by invariant; the gate makes
 * that defence in depth).
 */
import type { RecallDatabase } from '@recall/schema';
import { conversationRootId, conversationSegments } from '@recall/store';
import type { Lineage } from './result.js';
import { readableSession, type ToolScope } from './scope.js';

export type LineageOf = (sessionId: string) => Lineage;

export function lineageCache(db: RecallDatabase, scope: ToolScope): LineageOf {
  // Keyed by session: every segment of a chain shares one entry once the chain has been read.
  const bySession = new Map<string, Lineage>();
  return (sessionId: string) => {
    let lineage = bySession.get(sessionId);
    if (!lineage) {
      const segments = conversationSegments(db, sessionId).filter((id) => id === sessionId || readableSession(db, scope, id) !== undefined);
      lineage = { conversation_id: conversationRootId(db, sessionId), segments };
      for (const id of segments) bySession.set(id, lineage);
      bySession.set(sessionId, lineage);
    }
    return lineage;
  };
}
