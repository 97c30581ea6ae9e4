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
  const byRoot = new Map<string, Lineage>();
  const rootOf = new Map<string, string>();
  return (sessionId: string) => {
    let root = rootOf.get(sessionId);
    if (root === undefined) {
      root = conversationRootId(db, sessionId);
      rootOf.set(sessionId, root);
    }
    let lineage = byRoot.get(root);
    if (!lineage) {
      const segments = conversationSegments(db, root).filter((id) => id === sessionId || readableSession(db, scope, id) !== undefined);
      lineage = { conversation_id: root, segments };
      byRoot.set(root, lineage);
    }
    return lineage;
  };
}
