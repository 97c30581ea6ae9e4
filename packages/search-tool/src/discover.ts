/**
 * The discover shape (a query): project-scoped keyword search, optionally fused with semantic
 * search on message anchors (fusion.ts: weighted RRF chosen on a dev split), one result per
 * logical conversation anchored at its best fused hit (its other hits listed), title matches merged
 * in by how much of the query they match, each with a window of surrounding messages. `since` /
 * `until` are applied inside both searches too. The scope is applied inside
 * both searches (in SQL, before any limit); this module never widens it and never fills up results
 * from elsewhere.
 */
import type { Message, WritingScript } from '@recall/rpc-contract';
import type { SessionRecord, Storage } from '@recall/storage-ports';
import type { SessionSearchArgs } from './arguments.js';
import { lineageCache, type LineageOf } from './conversation-lineage.js';
import { ownLiveMatchCount, runKeyword, type KeywordMessageHit } from './keyword-source.js';
import { clip, isoDate, messageLink, sessionFacts, SNIPPET_CHARS, windowMessage, type MatchSource, type SearchResultItem, type UsedMode } from './result.js';
import type { DateRange } from './date-range.js';
import { fuseRankings, fusionParamsFor, keywordConfidence } from './fusion.js';
import { readableSessions, type ToolScope } from './scope.js';
import type { SemanticHit, SemanticSource } from './semantic-source.js';
import { blendRerank, type Reranker } from './reranker.js';
import { SCRIPT_SHARE_MIN, scriptNames, scriptShare, unreadQueryScripts } from './scripts.js';

/** Candidates fetched per requested result, so that per-conversation dedup still fills `limit`. */
const CANDIDATES_PER_RESULT = 8;
const MAX_CANDIDATES = 400;
const OTHER_IDS_PER_RESULT = 3;
/** Characters of an anchor's text sent to a reranker (cross-encoders read ~512 tokens). */
export const RERANK_TEXT_CHARS = 2_000;

export interface DiscoverInput {
  /** The call's storage (inside its read scope). */
  storage: Storage;
  scope: ToolScope;
  args: SessionSearchArgs & { query: string };
  /** Semantic source to use, or null when this call is keyword-only (disabled, unavailable, or mode=keyword). */
  semantic: SemanticSource | null;
  /**
   * The semantic hits of this call when they were fetched before the read scope was entered (see
   * semanticHits: the query embedding never holds a scoped transaction open); undefined = fetch them here.
   */
  semanticResult?: SemanticResult;
  deadline: AbortSignal;
  /** Reranker of the fused top conversations, or null (not configured, not allowed for this scope, or mode=keyword). */
  reranker?: Reranker | null;
  /** `since`/`until` of the call, resolved (date-range.ts); applied in both searches' SQL and checked again here. */
  dates?: DateRange;
}

export interface DiscoverOutput {
  results: SearchResultItem[];
  usedMode: UsedMode;
  notes: string[];
  /** More matching conversations exist than were returned (see notes). */
  truncated: boolean;
  /** Semantic mode found nothing above the model's similarity floor (the notes say so). */
  noSemanticMatch: boolean;
  /** Whether the reranker reordered the top conversations (false when none was used or it failed). */
  reranked: boolean;
}

/** The semantic source's hits of one call (null: no source, or it failed) and the notes saying why some are missing. */
export interface SemanticResult {
  hits: SemanticHit[] | null;
  notes: string[];
}

/** How many candidates one call asks each list for (limit × CANDIDATES_PER_RESULT, capped). */
export function candidateLimitFor(limit: number): number {
  return Math.min(limit * CANDIDATES_PER_RESULT, MAX_CANDIDATES);
}

/**
 * Asks the semantic source for this call's candidates (the query embedding and the allowed-set
 * scan). The tool calls it before it enters the storage's read scope, so no scoped transaction is
 * held open while the provider embeds the query; a failure becomes a note and null.
 */
export async function semanticHits(input: Pick<DiscoverInput, 'semantic' | 'args' | 'scope' | 'deadline' | 'dates'>): Promise<SemanticResult> {
  const notes: string[] = [];
  return { hits: await semanticHitsInto(input, candidateLimitFor(input.args.limit), notes), notes };
}

async function semanticHitsInto(input: Pick<DiscoverInput, 'semantic' | 'args' | 'scope' | 'deadline' | 'dates'>, limit: number, notes: string[]): Promise<SemanticHit[] | null> {
  if (!input.semantic) return null;
  try {
    return await input.semantic.search(input.args.query, input.scope, {
      limit,
      ...(input.args.role_filter ? { roles: input.args.role_filter } : {}),
      signal: input.deadline,
      ...input.dates,
    });
  } catch (error) {
    const reason = input.deadline.aborted ? 'the semantic search did not finish before the deadline' : `the semantic search failed (${(error as Error).message})`;
    notes.push(`Semantic results are missing: ${reason}.`);
    return null;
  }
}

/** What semantic mode says instead of listing loosely related text when nothing clears the model's similarity floor. */
export const NO_SEMANTIC_MATCH_NOTE =
  'No semantic match: nothing in this project is close enough in meaning to the query to be worth showing. A search for exact words may still find something.';

/**
 * What a call says when every semantic match was left out because the model does not read the
 * query's script and no matching passage is written in it (scripts.ts): for people, naming what
 * the model reads, so an empty semantic list is not mistaken for "nothing related exists".
 */
export function unreadScriptNote(reads: readonly WritingScript[], queryScripts: readonly WritingScript[], mode: 'semantic' | 'hybrid', results: number): string {
  const why = `the semantic model reads only ${scriptNames(reads)}, and none of the passages it found is mostly written in ${scriptNames(queryScripts)}`;
  if (mode === 'semantic') return `No semantic match: ${why}. A search for exact words may still find something.`;
  return `No match by meaning: ${why}.${results > 0 ? " The results match the query's exact words." : ''}`;
}

/** Whether a semantic hit's chunk (its range of the message, or the whole message) is mostly written in `scripts` (scripts.ts). */
function sharesScript(message: Message | undefined, hit: SemanticHit, scripts: readonly WritingScript[]): boolean {
  if (!message) return false;
  const text = hit.start !== undefined && hit.end !== undefined ? message.content.slice(hit.start, hit.end) : message.content;
  return scriptShare(text, scripts) >= SCRIPT_SHARE_MIN;
}

/**
 * One logical conversation being ranked: its anchor (the hit with the best fused score), how many
 * distinct query terms the anchor matches, whether its title matched (and how many terms), and the
 * ids of its other matches.
 */
interface Group {
  root: string;
  session: SessionRecord;
  message: Message;
  source: MatchSource;
  snippet: string;
  /** Distinct query terms of the anchor's text (0 for a semantic-only anchor or a title-only group). */
  bodyTerms: number;
  /** Distinct query terms of the title, or -1 when the title did not match. */
  titleTerms: number;
  /** Other hits of the conversation in fused order, with their keyword rank (Infinity = semantic only). */
  others: { id: number; keywordRank: number }[];
  /** The anchor's fused score (0 for a title-only group). */
  fused: number;
}

/**
 * The other matches listed with a result: keyword matches first (in keyword order: the exact words
 * of the question), then semantic-only ones in fused order, at most OTHER_IDS_PER_RESULT.
 */
function otherIds(others: Group['others']): number[] {
  return [...others]
    .map((o, i) => ({ ...o, i }))
    .sort((a, b) => a.keywordRank - b.keywordRank || a.i - b.i)
    .slice(0, OTHER_IDS_PER_RESULT)
    .map((o) => o.id);
}

/**
 * Merges title-matched conversations (in title order) with body-matched ones (in fused order): a
 * title goes first unless the next body anchor matches more distinct query terms than the title
 * does, so a one-word title never outranks a message matching more of the question. Each list
 * keeps its own order.
 */
export function mergeTitleAndBody<T extends { titleTerms: number; bodyTerms: number }>(titles: readonly T[], bodies: readonly T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < titles.length || j < bodies.length) {
    const t = titles[i];
    const b = bodies[j];
    if (t && (!b || Math.max(t.titleTerms, t.bodyTerms) >= b.bodyTerms)) {
      out.push(t);
      i++;
    } else {
      out.push(b!);
      j++;
    }
  }
  return out;
}

function inRange(at: number, dates: DateRange | undefined): boolean {
  if (!dates) return true;
  return (dates.since === undefined || at >= dates.since) && (dates.until === undefined || at < dates.until);
}

export async function discover(input: DiscoverInput): Promise<DiscoverOutput> {
  const { storage, scope, args } = input;
  const dates = input.dates ?? {};
  const notes: string[] = [];
  const candidateLimit = candidateLimitFor(args.limit);
  const wantKeyword = args.search_mode !== 'semantic';
  const keyword = wantKeyword ? await runKeyword(storage, scope, args.query, { limit: candidateLimit, roles: args.role_filter, substringFallback: true, dates }) : null;
  if (keyword) notes.push(...keyword.notes);
  let semanticRaw: SemanticHit[] | null;
  if (input.semanticResult) {
    semanticRaw = input.semanticResult.hits;
    notes.push(...input.semanticResult.notes);
  } else semanticRaw = await semanticHitsInto(input, candidateLimit, notes);
  const params = fusionParamsFor(input.semantic?.fusion);
  // The model's similarity floor: hits below it are noise, in every mode.
  const aboveFloor = semanticRaw ? semanticRaw.filter((h) => h.score >= params.similarityFloor) : null;

  // Every candidate message in one read (the gate below and the script gate need their text).
  const candidates = await storage.messages.findMany([...new Set([...(keyword?.hits ?? []).map((h) => h.messageId), ...(aboveFloor ?? []).map((h) => h.messageId)])]);
  // A query written only in scripts the model does not read keeps a semantic hit only when its chunk shares the query's script (scripts.ts).
  const unread = aboveFloor && aboveFloor.length > 0 ? unreadQueryScripts(args.query, input.semantic?.scripts) : null;
  const semantic = aboveFloor && unread ? aboveFloor.filter((h) => sharesScript(candidates.get(h.messageId), h, unread)) : aboveFloor;
  const scriptGateEmptied = unread !== null && semantic !== null && semantic.length === 0;

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
    params,
    keywordConfidence(keyword?.hits ?? []),
  );

  // Every anchor passes the same scope gate as read/scroll before it becomes a result. Keyword hits
  // are already scoped in SQL; this is defence in depth, and the only gate for a semantic source,
  // whose implementation lives in another package.
  const session = readableSessions(storage, scope);
  const lineageOf = lineageCache(storage, session);
  const rootOf = async (id: string) => (await lineageOf(id)).conversation_id;

  // One group per logical conversation, anchored at its best fused hit; later hits of the same
  // conversation only add their ids. Windows are read only for the groups that are returned.
  // The gate's reads are batched: every candidate message in one read (above), their sessions in one, the
  // lineage of the gated ones in three (a bounded number of round trips on PostgreSQL).
  const fusedMessages = fused.map((f) => candidates.get(f.key)).filter((m): m is Message => m !== undefined);
  await session.prime(fusedMessages.map((m) => m.sessionId));
  const gated: string[] = [];
  for (const m of fusedMessages) if ((await session(m.sessionId)) !== undefined) gated.push(m.sessionId);
  await lineageOf.prime(gated);
  const groups = new Map<string, Group>();
  const bodyOrder: Group[] = [];
  for (const f of fused) {
    const k = keywordById.get(f.key);
    const sem = semanticById.get(f.key);
    const message = candidates.get(f.key);
    const s = message ? await session(message.sessionId) : undefined;
    if (!message || !s || (message.visibility !== 'live' && message.visibility !== 'compacted')) continue;
    // The caller's own live messages are already in its context (see keyword-source.ts).
    if (message.sessionId === scope.currentSessionId && message.visibility === 'live') continue;
    // The role filter and the date range are part of the gate too: a semantic source is trusted no more for them than for scope.
    if (args.role_filter && !args.role_filter.includes(message.role)) continue;
    if (!inRange(message.createdAt, dates)) continue;
    const root = await rootOf(s.id);
    const existing = groups.get(root);
    if (existing) {
      if (existing.message.id !== message.id) existing.others.push({ id: message.id, keywordRank: f.ranks.keyword ?? Infinity });
      continue;
    }
    const g: Group = { root, session: s, message, source: f.source, snippet: k?.snippet ?? semanticSnippet(message, sem), bodyTerms: k?.terms ?? 0, titleTerms: -1, others: [], fused: f.score };
    groups.set(root, g);
    bodyOrder.push(g);
  }

  // Optional reranking of the top body conversations (reranker.ts: blended, never a replacement).
  const reranked = input.reranker && bodyOrder.length > 1 ? await rerankGroups(input, bodyOrder, notes) : false;

  // Title hits: a matching title is a strong signal, but it ranks by how much of the query it
  // matches (mergeTitleAndBody). A conversation whose messages also matched keeps its best message
  // as the anchor; a title-only conversation is anchored at its first visible message of the
  // requested roles (in the date range). A title whose session has no such message is not a result.
  const roles = args.role_filter ? { roles: args.role_filter } : {};
  const titleOrder: Group[] = [];
  const titleSessions = (keyword?.titleHits ?? []).map((t) => t.sessionId);
  await session.prime(titleSessions);
  const titleGated: string[] = [];
  for (const id of titleSessions) if ((await session(id)) !== undefined) titleGated.push(id);
  await lineageOf.prime(titleGated);
  for (const t of keyword?.titleHits ?? []) {
    const s = await session(t.sessionId);
    if (!s) continue;
    const root = await rootOf(s.id);
    const existing = groups.get(root);
    if (existing) {
      if (existing.titleTerms < 0) {
        existing.titleTerms = t.terms;
        titleOrder.push(existing);
      }
      continue;
    }
    const anchor = (await storage.messages.segmentsHeadTail([s.id], 1, 0, { ...roles, ...dates })).head[0];
    if (!anchor) continue;
    const g: Group = { root, session: s, message: anchor, source: 'keyword', snippet: clip(anchor.content, SNIPPET_CHARS), bodyTerms: 0, titleTerms: t.terms, others: [], fused: 0 };
    groups.set(root, g);
    titleOrder.push(g);
  }
  const inTitles = new Set(titleOrder.map((g) => g.root));
  const order = mergeTitleAndBody(titleOrder, bodyOrder.filter((g) => !inTitles.has(g.root)));

  let results: SearchResultItem[] = [];
  const shown = order.slice(0, args.limit);
  // Every result's window in one batch read.
  const windows = args.window > 0 ? await storage.messages.windows(shown.map((g) => ({ sessionId: g.session.id, anchorId: g.message.id, before: args.window, after: args.window }))) : [];
  for (const [i, g] of shown.entries()) {
    results.push({
      ...(await buildItem(g.session, lineageOf, g.message, g.source, g.snippet, windows[i]?.messages ?? [])),
      match_field: g.titleTerms >= 0 ? ('title' as const) : ('message' as const),
      ...(g.others.length > 0 ? { other_message_ids: otherIds(g.others) } : {}),
    });
  }
  if (args.sort === 'newest') results = [...results].sort((a, b) => b.date.localeCompare(a.date));
  if (args.sort === 'oldest') results = [...results].sort((a, b) => a.date.localeCompare(b.date));

  // Truncation: more conversations matched than `limit`, or the candidate list was full (so
  // per-conversation de-duplication may have left conversations beyond the cap unseen).
  const capped = (keyword?.hits.length ?? 0) >= candidateLimit || (semanticRaw?.length ?? 0) >= candidateLimit;
  let truncated = false;
  if (order.length > args.limit) {
    truncated = true;
    notes.push(`More than ${args.limit} conversations match; raise limit (up to 50) or refine the query to see others.`);
  } else if (capped && order.length > 0) {
    truncated = true;
    notes.push(
      `Only the ${candidateLimit} best-matching messages were considered and they came from ${order.length} conversation(s); more matching conversations may exist — refine the query${args.limit < 50 ? ' or raise limit' : ''}.`,
    );
  }
  // Semantic mode with nothing above the floor: say so instead of listing noise.
  const noSemanticMatch = usedMode === 'semantic' && results.length === 0;
  if (scriptGateEmptied && unread && (noSemanticMatch || usedMode === 'hybrid')) notes.push(unreadScriptNote(input.semantic?.scripts ?? [], unread, noSemanticMatch ? 'semantic' : 'hybrid', results.length));
  else if (noSemanticMatch) notes.push(NO_SEMANTIC_MATCH_NOTE);
  if (keyword) {
    const own = await ownLiveMatchCount(storage, scope, args.query, args.role_filter, dates);
    if (own > 0) {
      notes.push(
        `Your current conversation also matches (${own === 1 ? 'a message' : `${own}+ messages`}), but it is not listed: its live messages are already in your context.${results.length === 0 ? ' No earlier conversation matches.' : ''}`,
      );
    }
  }
  return { results, usedMode, notes, truncated, noSemanticMatch, reranked };
}

/** The note a call carries when its reranking did not happen; results are then in fused order. */
export function rerankSkippedNote(reason: string): string {
  return `Results are in search order, not reranked: ${reason}.`;
}

/** Reorders the first `topN` groups in place by the blended score; false (with a note) when the reranker failed. */
async function rerankGroups(input: DiscoverInput, groups: Group[], notes: string[]): Promise<boolean> {
  const reranker = input.reranker!;
  const head = groups.slice(0, Math.max(0, Math.min(reranker.topN, groups.length)));
  if (head.length < 2) return false;
  if (input.deadline.aborted) {
    notes.push(rerankSkippedNote('the search deadline had passed before the reranker could be asked'));
    return false;
  }
  let scores: number[];
  try {
    scores = await reranker.rerank(
      input.args.query,
      head.map((g) => clip(g.message.content, RERANK_TEXT_CHARS)),
      { signal: input.deadline },
    );
    if (!Array.isArray(scores) || scores.length !== head.length) throw new Error(`it returned ${Array.isArray(scores) ? scores.length : 'no'} scores for ${head.length} texts`);
  } catch (error) {
    notes.push(rerankSkippedNote(input.deadline.aborted ? 'the reranker did not answer before the search deadline' : `the reranker failed (${(error as Error).message})`));
    return false;
  }
  const order = blendRerank(head.map((g) => g.fused), scores);
  const reordered = order.map((i) => head[i]!);
  groups.splice(0, head.length, ...reordered);
  return true;
}

function semanticSnippet(message: Message, hit: SemanticHit | undefined): string {
  if (hit?.start !== undefined && hit.end !== undefined) return clip(message.content.slice(hit.start, hit.end), SNIPPET_CHARS);
  return clip(message.content, SNIPPET_CHARS);
}

async function buildItem(session: SessionRecord, lineageOf: LineageOf, message: Message, source: MatchSource, snippet: string, window: readonly Message[]): Promise<SearchResultItem> {
  const win = window.map((m) => windowMessage(m, message.id, session.id));
  return {
    session_id: session.id,
    message_id: message.id,
    link: messageLink(session.id, message.id),
    role: message.role,
    snippet,
    match_source: source,
    ...sessionFacts(session, await lineageOf(session.id)),
    date: isoDate(message.createdAt),
    window: win,
  };
}
