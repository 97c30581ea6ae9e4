/**
 * Adapter from the tool's scope to the store's project-scoped keyword search. A project caller
 * searches its project minus its own live messages (already in its context); a project-less
 * caller searches only its own compression history (and its own compacted messages). Returns message hits best first
 * and title hits separately.
 */
import type { RecallDatabase } from '@recall/schema';
import type { MessageRole } from '@recall/schema';
import { keywordSearch, type KeywordScope } from '@recall/store';
import type { ToolScope } from './scope.js';

export interface KeywordMessageHit {
  messageId: number;
  sessionId: string;
  snippet: string;
  score: number;
}

export interface KeywordRun {
  hits: KeywordMessageHit[];
  titleHits: { sessionId: string }[];
  notes: string[];
}

/**
 * The caller's own session is excluded as *live* context only: messages it compacted in place have
 * left the model's context and stay recallable, like its compression ancestors.
 */
export function keywordScopeFor(scope: ToolScope): KeywordScope | null {
  const excludeSessionIds = scope.currentSessionId === null ? [] : [scope.currentSessionId];
  if (scope.kind === 'project') return { kind: 'project', projectId: scope.projectId, excludeSessionIds };
  return scope.sessionIds.length > 0 ? { kind: 'sessions', sessionIds: scope.sessionIds, excludeSessionIds } : null;
}

export function runKeyword(db: RecallDatabase, scope: ToolScope, query: string, options: { limit: number; roles?: readonly MessageRole[] | undefined }): KeywordRun {
  const keywordScope = keywordScopeFor(scope);
  if (!keywordScope) return { hits: [], titleHits: [], notes: [] };
  const out = keywordSearch(db, keywordScope, query, { limit: options.limit, ...(options.roles ? { roleFilter: options.roles } : {}) });
  return {
    hits: out.hits.map((h) => ({ messageId: h.messageId, sessionId: h.sessionId, snippet: h.snippet, score: h.score })),
    titleHits: out.titleHits.map((t) => ({ sessionId: t.sessionId })),
    notes: out.notes,
  };
}
