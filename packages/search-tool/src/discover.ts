/**
 * The discover shape (a query): project-scoped keyword search, optionally fused with semantic
 * search on message anchors (fusion.ts: weighted RRF chosen on a dev split), then title hits first, one result per
 * logical conversation, each with a window of surrounding messages. The scope is applied inside
 * both searches (in SQL, before any limit); this module never widens it and never fills up results
 * from elsewhere.
 */
import type { Message } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { findMessage, messageWindow, segmentsHeadTail, type SessionHeader } from '@recall/store';
import type { SessionSearchArgs } from './arguments.js';
import { lineageCache, type LineageOf } from './conversation-lineage.js';
import { ownLiveMatchCount, runKeyword, type KeywordMessageHit } from './keyword-source.js';
import { clip, isoDate, messageLink, sessionFacts, SNIPPET_CHARS, windowMessage, type MatchSource, type SearchResultItem, type UsedMode } from './result.js';
import { fuseRankings, fusionParamsFor } from './fusion.js';
import { readableSession, type ToolScope } from './scope.js';
import type { SemanticHit, SemanticSource } from './semantic-source.js';

/** Candidates fetched per requested result, so that per-conversation dedup still fills `limit`. */
const CANDIDATES_PER_RESULT = 8;
const MAX_CANDIDATES = 400;
const OTHER_IDS_PER_RESULT = 3;

export interface DiscoverInput {
  db: RecallDatabase;
  scope: ToolScope;
  args: SessionSearchArgs & { query: string };
  /** Semantic source to use, or null when this call is keyword-only (disabled, unavailable, or mode=keyword). */
  semantic: SemanticSource | null;
  deadline: AbortSignal;
}

export interface DiscoverOutput {
  results: SearchResultItem[];
  usedMode: UsedMode;
  notes: string[];
  /** More matching conversations exist than were returned (see notes). */
  truncated: boolean;
}

async function semanticHits(input: DiscoverInput, limit: number, notes: string[]): Promise<SemanticHit[] | null> {
  if (!input.semantic) return null;
  try {
    return await input.semantic.search(input.args.query, input.scope, { limit, ...(input.args.role_filter ? { roles: input.args.role_filter } : {}), signal: input.deadline });
  } catch (error) {
    const reason = input.deadline.aborted ? 'the semantic search did not finish before the deadline' : `the semantic search failed (${(error as Error).message})`;
    notes.push(`Semantic results are missing: ${reason}.`);
    return null;
  }
}

export async function discover(input: DiscoverInput): Promise<DiscoverOutput> {
  const { db, scope, args } = input;
  const notes: string[] = [];
  const candidateLimit = Math.min(args.limit * CANDIDATES_PER_RESULT, MAX_CANDIDATES);
  const wantKeyword = args.search_mode !== 'semantic';
  const keyword = wantKeyword ? runKeyword(db, scope, args.query, { limit: candidateLimit, roles: args.role_filter, substringFallback: true }) : null;
  if (keyword) notes.push(...keyword.notes);
  const semantic = await semanticHits(input, candidateLimit, notes);

  let usedMode: UsedMode;
  if (keyword && semantic) usedMode = 'hybrid';
  else if (keyword) usedMode = 'keyword';
  else if (semantic) usedMode = 'semantic';
  else usedMode = 'none';

  // Rank message anchors by the designed fusion (fusion.ts); a single list keeps its own order.
  const keywordById = new Map<number, KeywordMessageHit>((keyword?.hits ?? []).map((h) => [h.messageId, h]));
  const semanticById = new Map<number, SemanticHit>((semantic ?? []).map((h) => [h.messageId, h]));
  const fused = fuseRankings(
    (keyword?.hits ?? []).map((h) => h.messageId),
    (semantic ?? []).map((h) => ({ key: h.messageId, score: h.score })),
    fusionParamsFor(input.semantic?.fusion),
  );

  // Every anchor passes the same scope gate as read/scroll before it becomes a result. Keyword hits
  // are already scoped in SQL; this is defence in depth, and the only gate for a semantic source,
  // whose implementation lives in another package.
  const sessionCache = new Map<string, SessionHeader | undefined>();
  const session = (id: string) => {
    if (!sessionCache.has(id)) sessionCache.set(id, readableSession(db, scope, id));
    return sessionCache.get(id);
  };
  const lineageOf = lineageCache(db, scope);
  const rootOf = (id: string) => lineageOf(id).conversation_id;

  // One result per logical conversation. A later hit in a conversation already listed only adds its
  // id; the item (its window read from the database) is built only for the first `limit`
  // conversations — the rest are counted for the truncation note, never materialised.
  const byConversation = new Map<string, SearchResultItem | null>();
  const order: string[] = [];
  const add = (sessionId: string, messageId: number, build: () => SearchResultItem) => {
    const root = rootOf(sessionId);
    const existing = byConversation.get(root);
    if (existing !== undefined) {
      if (existing === null) return;
      existing.other_message_ids ??= [];
      if (existing.other_message_ids.length < OTHER_IDS_PER_RESULT && existing.message_id !== messageId) existing.other_message_ids.push(messageId);
      return;
    }
    byConversation.set(root, order.length < args.limit ? build() : null);
    order.push(root);
  };

  // Title hits first: a conversation whose title matches is the strongest signal we have. The
  // anchor is the session's first visible message of the requested roles (role_filter applies to
  // title hits too: a title whose session has no such message is not a result).
  const roles = args.role_filter ? { roles: args.role_filter } : {};
  for (const t of keyword?.titleHits ?? []) {
    const s = session(t.sessionId);
    const anchor = s ? segmentsHeadTail(db, [s.id], 1, 0, roles).head[0] : undefined;
    if (!s || !anchor) continue;
    add(s.id, anchor.id, () => ({ ...buildItem(db, s, lineageOf, anchor, 'keyword', clip(anchor.content, SNIPPET_CHARS), args.window), match_field: 'title' }));
  }
  for (const f of fused) {
    const k = keywordById.get(f.key);
    const sem = semanticById.get(f.key);
    const message = findMessage(db, f.key);
    const s = message ? session(message.sessionId) : undefined;
    if (!message || !s || (message.visibility !== 'live' && message.visibility !== 'compacted')) continue;
    // The caller's own live messages are already in its context (see keyword-source.ts).
    if (message.sessionId === scope.currentSessionId && message.visibility === 'live') continue;
    // The role filter is part of the gate too: a semantic source is trusted no more for roles than for scope.
    if (args.role_filter && !args.role_filter.includes(message.role)) continue;
    const source: MatchSource = f.source;
    add(s.id, message.id, () => ({ ...buildItem(db, s, lineageOf, message, source, k?.snippet ?? semanticSnippet(message, sem), args.window), match_field: 'message' }));
  }

  let results = order.slice(0, args.limit).map((root) => byConversation.get(root)!);
  if (args.sort === 'newest') results = [...results].sort((a, b) => b.date.localeCompare(a.date));
  if (args.sort === 'oldest') results = [...results].sort((a, b) => a.date.localeCompare(b.date));

  // Truncation: more conversations matched than `limit`, or the candidate list was full (so
  // per-conversation de-duplication may have left conversations beyond the cap unseen).
  const capped = (keyword?.hits.length ?? 0) >= candidateLimit || (semantic?.length ?? 0) >= candidateLimit;
  let truncated = false;
  if (order.length > args.limit) {
    truncated = true;
    notes.push(`More than ${args.limit} conversations match; raise limit (up to 50) or refine the query to see others.`);
  } else if (capped) {
    truncated = true;
    notes.push(
      `Only the ${candidateLimit} best-matching messages were considered and they came from ${order.length} conversation(s); more matching conversations may exist — refine the query${args.limit < 50 ? ' or raise limit' : ''}.`,
    );
  }
  if (keyword) {
    const own = ownLiveMatchCount(db, scope, args.query, args.role_filter);
    if (own > 0) {
      notes.push(
        `Your current conversation also matches (${own === 1 ? 'a message' : `${own}+ messages`}), but it is not listed: its live messages are already in your context.${results.length === 0 ? ' No earlier conversation matches.' : ''}`,
      );
    }
  }
  return { results, usedMode, notes, truncated };
}

function semanticSnippet(message: Message, hit: SemanticHit | undefined): string {
  if (hit?.start !== undefined && hit.end !== undefined) return clip(message.content.slice(hit.start, hit.end), SNIPPET_CHARS);
  return clip(message.content, SNIPPET_CHARS);
}

function buildItem(db: RecallDatabase, session: SessionHeader, lineageOf: LineageOf, message: Message, source: MatchSource, snippet: string, window: number): SearchResultItem {
  const win = window > 0 ? messageWindow(db, session.id, message.id, window, window).messages.map((m) => windowMessage(m, message.id, session.id)) : [];
  return {
    session_id: session.id,
    message_id: message.id,
    link: messageLink(session.id, message.id),
    role: message.role,
    snippet,
    match_source: source,
    ...sessionFacts(session, lineageOf(session.id)),
    date: isoDate(message.createdAt),
    window: win,
  };
}
