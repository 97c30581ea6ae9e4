/**
 * Adapter from the tool's scope to the storage's project-scoped keyword index. A project caller
 * searches its project minus its own live messages (already in its context); a project-less
 * caller searches only its own compression history (and its own compacted messages). Returns message hits best first
 * and title hits separately.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { KeywordQueryScope, Storage } from '@recall/storage-ports';
import type { DateRange } from './date-range.js';
import type { ToolScope } from './scope.js';

export interface KeywordMessageHit {
  messageId: number;
  sessionId: string;
  snippet: string;
  score: number;
  /** Distinct query terms the message matches (whole words). */
  terms: number;
}

export interface KeywordRun {
  hits: KeywordMessageHit[];
  /** Title hits, best first, with the distinct query terms each title matches. */
  titleHits: { sessionId: string; terms: number }[];
  notes: string[];
}

/**
 * The caller's own session is excluded as *live* context only: messages it compacted in place have
 * left the model's context and stay recallable, like its compression ancestors.
 */
export function keywordScopeFor(scope: ToolScope): KeywordQueryScope | null {
  const excludeSessionIds = scope.currentSessionId === null ? [] : [scope.currentSessionId];
  if (scope.kind === 'project') return { kind: 'project', projectId: scope.projectId, excludeSessionIds };
  return scope.sessionIds.length > 0 ? { kind: 'sessions', sessionIds: scope.sessionIds, excludeSessionIds } : null;
}

export async function runKeyword(
  storage: Storage,
  scope: ToolScope,
  query: string,
  options: { limit: number; roles?: readonly MessageRole[] | undefined; substringFallback?: boolean; dates?: DateRange },
): Promise<KeywordRun> {
  const keywordScope = keywordScopeFor(scope);
  if (!keywordScope) return { hits: [], titleHits: [], notes: [] };
  const out = await storage.keyword.search(keywordScope, query, {
    limit: options.limit,
    ...(options.roles ? { roles: options.roles } : {}),
    ...(options.substringFallback ? { substringFallback: true } : {}),
    ...options.dates,
  });
  return {
    hits: out.hits.map((h) => ({ messageId: h.messageId, sessionId: h.sessionId, snippet: h.snippet, score: h.score, terms: h.matchedTerms?.length ?? 0 })),
    titleHits: out.titleHits.map((t) => ({ sessionId: t.sessionId, terms: t.matchedTerms?.length ?? 0 })),
    notes: out.notes,
  };
}

/** How many of the caller's own LIVE messages we count at most for the "also matches" note. */
const OWN_MATCH_PROBE = 5;

/**
 * How many of the caller's own live messages match the query (0..OWN_MATCH_PROBE): they are
 * excluded from discover because they are already in the model's context, and the tool says so
 * instead of a bare "No matches". Searches only the caller's own session.
 */
export async function ownLiveMatchCount(storage: Storage, scope: ToolScope, query: string, roles: readonly MessageRole[] | undefined, dates: DateRange = {}): Promise<number> {
  if (scope.currentSessionId === null) return 0; // a project-wide caller has no conversation of its own
  const out = await storage.keyword.search({ kind: 'sessions', sessionIds: [scope.currentSessionId] }, query, {
    limit: OWN_MATCH_PROBE * 2,
    titleLimit: 0,
    partialCjk: false,
    // Only counted: no ranking by the session's own statistics.
    order: 'any',
    ...(roles ? { roles } : {}),
    ...dates,
  });
  const messages = await storage.messages.findMany(out.hits.map((h) => h.messageId));
  let live = 0;
  for (const h of out.hits) {
    if (live >= OWN_MATCH_PROBE) break;
    if (messages.get(h.messageId)?.visibility === 'live') live++;
  }
  return live;
}
