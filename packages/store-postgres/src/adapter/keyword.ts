/**
 * KeywordIndex on PostgreSQL: the tsvector/GIN ranked query of ../keyword-search.ts for every scope
 * the search tool uses — one project, or a list of own-history sessions — with the caller's own live
 * messages left out, an optional role filter, and title hits. It runs inside a row-level-security
 * transaction of that scope (tx.ts `scoped`), so even the ranked query's own filter is backed by the
 * database. The scope and filters are WHERE conditions of the ranked query, before ORDER BY … LIMIT.
 */
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import {
  AUTOMATED_SOURCES,
  compareRanked,
  coverageUnits,
  creditReplies,
  findTermSpans,
  lowWholeWordCoverage,
  normalizeForSearch,
  paraphraseWords,
  rankExchanges,
  REPLY_CREDIT_BM25,
  scoreTitles,
  searchableContent,
} from '@recall/store/portable';
import type { KeywordAnswer, KeywordIndex, KeywordQueryOptions, KeywordQueryScope, KeywordTitleMatch } from '@recall/storage-ports';
import type pg from 'pg';
import { keywordQuery, type QueryLeaf } from '../keyword-text.js';
import { bm25, leafFrequency, parseTsvector, SCOPE_TOKEN_LENGTH, type Bm25Stats, type ParsedDocument } from './keyword-bm25.js';
import { collectMatches } from './keyword-window.js';
import { keywordSnippet } from '../snippet.js';
import { poolIdentity, scoped, toMessage, VISIBLE_SQL, type RlsScope } from './tx.js';

const clamp = (v: number | undefined, d: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(v ?? d)));
/** Titles examined per query at most (newest sessions first). */
const TITLE_SCAN = 2_000;
/**
 * Candidates the GIN query returns (best by ts_rank, the most recall_keyword_matches gives) for
 * BM25 in TypeScript (keyword-bm25.ts) to order; the best `limit` of them are the answer.
 */
const BM25_CANDIDATES = 500;
/** Candidates per requested hit (at least BM25_MIN_CANDIDATES, at most BM25_CANDIDATES). */
const BM25_CANDIDATE_FACTOR = 4;
const BM25_MIN_CANDIDATES = 100;
const PARAPHRASE_NOTE = 'The best matches share few of the question’s Chinese/Japanese/Korean words whole: they were found character by character.';

function rlsScope(scope: KeywordQueryScope): RlsScope | null {
  if (scope?.kind === 'project') return typeof scope.projectId === 'string' && scope.projectId !== '' ? { projectId: scope.projectId } : null;
  if (scope?.kind === 'sessions') {
    const ids = (scope.sessionIds ?? []).filter((id): id is string => typeof id === 'string');
    return ids.length > 0 ? { sessionIds: ids } : null;
  }
  return null; // unknown scope kinds never widen to "everything"
}

/** The KeywordIndex of a PostgreSQL team database. */
export function postgresKeyword(pool: pg.Pool): KeywordIndex {
  return {
    async search(scope: KeywordQueryScope, query: string, options: KeywordQueryOptions = {}): Promise<KeywordAnswer> {
      const limit = clamp(options.limit, 20, 1, 500);
      const titleLimit = clamp(options.titleLimit, 5, 0, 50);
      const { tsquery, parsed, leaves } = keywordQuery(typeof query === 'string' ? query : '', { cjkUnigrams: options.partialCjk !== false });
      const notes = [...parsed.notes];
      const rls = rlsScope(scope);
      if (!rls) return { hits: [], titleHits: [], notes };
      if (parsed.terms.length === 0) {
        if (!notes.length) notes.push('Empty query: nothing to search.');
        return { hits: [], titleHits: [], notes };
      }
      const exclude = (scope.excludeSessionIds ?? []).filter((id): id is string => typeof id === 'string');
      const roles = (options.roles ?? []).filter((r) => (MESSAGE_ROLES as readonly string[]).includes(r));
      const since = options.since !== undefined && Number.isFinite(options.since) ? Math.floor(options.since) : undefined;
      const until = options.until !== undefined && Number.isFinite(options.until) ? Math.floor(options.until) : undefined;
      const termsOf = (text: string): string[] => [...new Set(findTermSpans(normalizeForSearch(text), parsed.terms).map((s) => s.term))].map((i) => parsed.terms[i]!.text);
      return scoped(pool, rls, async (tx) => {
        const params: unknown[] = [];
        const p = (v: unknown) => {
          params.push(v);
          return `$${params.length}`;
        };
        const scopeSql = 'projectId' in rls ? `s.project_id = ${p(rls.projectId)}` : `s.id = any(${p([...rls.sessionIds])})`;
        let hits: KeywordAnswer['hits'] = [];
        if (tsquery !== null) {
          // recall_keyword_matches (migration 0010) ranks the scope's matches through the GIN index
          // on (project_id, document) and returns the best `limit` ids, a date range applied inside,
          // before its LIMIT; it reads the scope from the same settings as the policies. The messages
          // themselves are then read here, as recall_scoped under row-level security, and the scope is
          // checked once more on the sessions table, the one membership rule.
          const candidates = Math.min(BM25_CANDIDATES, Math.max(BM25_MIN_CANDIDATES, BM25_CANDIDATE_FACTOR * limit));
          const matchParams = (tsq: string, lim: number, count: CountRequest | null): { sql: string; values: unknown[] } => {
            const values: unknown[] = [...params];
            const v = (x: unknown) => {
              values.push(x);
              return `$${values.length}`;
            };
            const q = v(tsq);
            // One function (migration 0010): the date bounds are optional; without them it runs the
            // undated statement (one GIN index condition). With `count`, the same scan also counts the
            // scope's document frequencies: a header row (message_id NULL) carries them.
            const counting = count ? `, ${v(count.counted)}::tsquery, ${v(count.leaves)}::tsquery[], ${PART_READ_MATCHES}` : '';
            const call = `recall_keyword_matches(${q}::tsquery, ${v(roles)}::text[], ${v(exclude)}::text[], ${lim}, ${v(since ?? null)}::bigint, ${v(until ?? null)}::bigint${counting})`;
            return {
              sql: count
                ? // The header row passes the left joins with NULLs; every candidate row meets the same
                  // conditions as in the inner-joined statement below.
                  `select m.*, h.rank, h.frequencies, h.leaf_sets, h.leaf_set_counts, (select dk.document::text from message_keywords dk where dk.message_id = m.id) as kw_document, s.source as kw_source, s.project_id as kw_project
                 from ${call} h
                 left join messages m on m.id = h.message_id
                 left join sessions s on s.id = m.session_id
                where h.message_id is null or (${scopeSql} and not s.hidden and m.visibility in ${VISIBLE_SQL})
                order by h.message_id is not null, h.rank desc, m.id desc`
                : `select m.*, h.rank, (select dk.document::text from message_keywords dk where dk.message_id = m.id) as kw_document, s.source as kw_source, s.project_id as kw_project
                 from ${call} h
                 join messages m on m.id = h.message_id
                 join sessions s on s.id = m.session_id
                where ${scopeSql} and not s.hidden and m.visibility in ${VISIBLE_SQL}
                order by h.rank desc, m.id desc`,
              values,
            };
          };
          const fetchRows = async (tsq: string, lim: number): Promise<Array<Record<string, unknown>>> => {
            const { sql, values } = matchParams(tsq, lim, null);
            return (await tx.query(sql, values)).rows as Array<Record<string, unknown>>;
          };
          // Document frequencies as FTS5 counts them: every message of the scope holding the leaf,
          // whatever the rest of the question, the role filter or the excluded session; the last entry
          // counts the scope's matches of the question. The first call counts them in its own scan
          // (migration 0010), for at most MAX_COUNTED_LEAVES leaves.
          const countable = leaves.length <= MAX_COUNTED_LEAVES;
          // Without required terms the question is the OR of its leaves: it is what is counted over.
          const required = parsed.terms.some((t) => t.required);
          let rows: Array<Record<string, unknown>>;
          let counts: number[] | null = null;
          let leafSets: LeafSets | null = null;
          {
            const { sql, values } = matchParams(tsquery, candidates, countable && leaves.length > 0 ? { counted: required ? anyOf(leaves) : tsquery, leaves: leaves.map((l) => l.tsquery) } : null);
            const all = (await tx.query(sql, values)).rows as Array<Record<string, unknown>>;
            const header = all.find((r) => r.id === null || r.id === undefined);
            if (header) {
              counts = (header.frequencies as number[] | null) ?? null;
              const sets = header.leaf_sets as string[] | null;
              const sizes = header.leaf_set_counts as number[] | null;
              if (Array.isArray(sets) && Array.isArray(sizes) && sets.length === sizes.length) leafSets = { sets, sizes };
            }
            rows = header ? all.filter((r) => r !== header) : all;
            if (countable && leaves.length > 0 && !counts) counts = [...leaves.map(() => 0), 0];
          }
          const truncated = rows.length >= candidates;
          // Only when the candidates are every match of a plain question with nothing filtered out do
          // they give the same counts (and those are what the ranking uses then, as before).
          const fromCandidates = !truncated && roles.length === 0 && exclude.length === 0 && !required;
          const counted = !fromCandidates && counts ? counts : null;
          const matches = truncated && counted ? counted[leaves.length]! : rows.length;
          const documentFrequency = counted ? counted.slice(0, leaves.length) : leaves.map((l) => rows.filter((r) => leafFrequency(parsedDoc(r), l) > 0).length);
          const stats = rows.length > 0 ? { ...(await scopeSize(pool, tx, rls)), documentFrequency } : null;
          const scoreOf = new Map<unknown, number>();
          const scored = (r: Record<string, unknown>): number => {
            let v = scoreOf.get(r.id);
            if (v === undefined) scoreOf.set(r.id, (v = bm25(parsedDoc(r), leaves, stats!, r.kw_project != null)));
            return v;
          };
          const automatedOf = (r: Record<string, unknown>) => AUTOMATED_SOURCES.includes(String(r.kw_source));
          // More matches than one call returns: read the rest of them that can rank (keyword-window.ts),
          // up to PART_READ_MATCHES matches (beyond, the best by ts_rank are ranked, as before).
          if (truncated && countable && stats && matches <= PART_READ_MATCHES) {
            rows = (
              await collectMatches({
                tsquery,
                leaves,
                first: rows,
                cap: BM25_CANDIDATES,
                limit,
                stats,
                idOf: (r) => Number(r.id),
                fetch: (tsq) => fetchRows(tsq, BM25_CANDIDATES),
                count: (queries) => documentFrequencies(tx, tsquery, queries),
                // The first call's scan already counted the matches per combination of leaves.
                partSizes: leafSets ? (order) => partSizes(leafSets!, order) : undefined,
                score: (r) => ({ score: scored(r), automated: automatedOf(r) }),
              })
            ).rows;
          }
          const ranked = rows
            .map((r) => ({ r, id: Number(r.id), rank: -scored(r), automated: automatedOf(r) ? 1 : 0 }))
            .sort(compareRanked)
            .slice(0, limit);
          const cjkRelaxed = options.partialCjk !== false;
          const words = cjkRelaxed ? paraphraseWords(parsed.terms) : null;
          if (words !== null && ranked.length > 0 && lowWholeWordCoverage(ranked.map((x) => String(x.r.content)), words)) notes.push(PARAPHRASE_NOTE);
          let pairs = ranked.map((x) => {
            const m = toMessage(x.r);
            return { m, text: '', messageId: m.id, sessionId: m.sessionId, role: m.role, score: x.rank === 0 ? 0 : -x.rank, automated: x.automated === 1, matchedTerms: termsOf(m.content) };
          });
          // CJK questions: the same coverage re-rank of the BM25 candidates and the same question/reply
          // exchange rules as the SQLite search (keyword-coverage.ts, keyword-exchanges.ts).
          const units = cjkRelaxed ? coverageUnits(query, new Set()) : [];
          if (units.length > 0) {
            pairs = rankExchanges(
              pairs.map((o) => ({ ...o, text: normalizeForSearch(searchableContent(o.m.content)) })),
              units,
            );
          } else {
            // A reply that matches the query shares the score of the question directly before it, as on
            // SQLite (keyword-pairs.ts): the same rule, credit and whole-query guard.
            const distinctTerms = new Set(parsed.terms.map((t) => t.text)).size;
            pairs = creditReplies(pairs, {
              textOf: (h) => h.m.content,
              credit: REPLY_CREDIT_BM25,
              whole: (h) => new Set(h.matchedTerms).size >= distinctTerms,
            });
          }
          hits = pairs.map(({ m, score, matchedTerms }) => ({ messageId: m.id, sessionId: m.sessionId, role: m.role, createdAt: m.createdAt, score, snippet: keywordSnippet(m.content, parsed.terms, 240), matchedTerms }));
        }
        let titleHits: KeywordTitleMatch[] = [];
        if (titleLimit > 0) {
          const tp: unknown[] = ['projectId' in rls ? rls.projectId : [...rls.sessionIds], exclude];
          // A title counts only when its session has a visible message in the date range.
          const dated =
            since === undefined && until === undefined
              ? ''
              : `and exists (select 1 from messages d where d.session_id = s.id and d.visibility in ${VISIBLE_SQL}${since !== undefined ? ` and d.created_at >= ${since}` : ''}${until !== undefined ? ` and d.created_at < ${until}` : ''})`;
          const titles = (
            await tx.query(
              `select s.id, s.title, s.source from sessions s where ${'projectId' in rls ? 's.project_id = $1' : 's.id = any($1)'} and not s.hidden and s.title is not null
                 and not (s.id = any($2)) ${dated} order by s.started_at desc limit ${TITLE_SCAN}`,
              tp,
            )
          ).rows as Array<{ id: string; title: string; source: string | null }>;
          // Scored by the SQLite search's title rules (IDF of the matched terms over the titles in scope).
          titleHits = scoreTitles(
            titles.map((t) => ({ id: t.id, title: t.title, automated: AUTOMATED_SOURCES.includes(t.source ?? '') })),
            parsed,
            titles.length,
            titleLimit,
          ).map((t) => ({ sessionId: t.sessionId, title: t.title, score: t.score, matchedTerms: t.matchedTerms }));
        }
        return { hits, titleHits, notes };
      });
    },
  };
}

/** What the first matches call also counts: the scope's rows matching `counted` (which matches whatever the question matches) and each leaf. */
interface CountRequest {
  counted: string;
  leaves: string[];
}

/**
 * For each query, the scope's visible messages matching `tsquery` and it (recall_keyword_matches,
 * migration 0010, without a question: its header row only; the scope from the same settings as
 * the policies).
 */
async function documentFrequencies(tx: pg.PoolClient, tsquery: string, queries: readonly string[]): Promise<number[]> {
  if (queries.length === 0) return [];
  const row = (
    await tx.query('select frequencies from recall_keyword_matches(null, null, null, 0, null, null, $1::tsquery, $2::tsquery[]) where message_id is null', [tsquery, [...queries]])
  ).rows[0] as { frequencies: number[] | null } | undefined;
  return row?.frequencies?.slice(0, queries.length) ?? queries.map(() => 0);
}

/** The scope's matches of the question per combination of leaves (migration 0010's leaf_sets: one '0'/'1' per leaf). */
interface LeafSets {
  sets: string[];
  sizes: number[];
}

/**
 * The sizes of the parts keyword-window.ts reads, from the matches per combination of leaves: part
 * k holds the matches with leaf order[k] and none of order[0..k-1] (what documentFrequencies
 * counts for `leaf & !(earlier leaves)`, without another statement).
 */
export function partSizes(leafSets: LeafSets, order: readonly number[]): number[] {
  const out = order.map(() => 0);
  leafSets.sets.forEach((set, j) => {
    const k = order.findIndex((leaf) => set[leaf] === '1');
    if (k >= 0) out[k]! += leafSets.sizes[j]!;
  });
  return out;
}

/** A tsquery matching every message that holds any of `leaves` (FTS5 counts a phrase's documents over the whole index, not over the question's matches). */
function anyOf(leaves: readonly QueryLeaf[]): string {
  return leaves.length === 1 ? leaves[0]!.tsquery : leaves.map((l) => l.tsquery).join(' | ');
}

/** Parsed tsvectors per candidate row (each row is parsed once, however often it is scored). */
const parsedDocs = new WeakMap<object, ParsedDocument>();
function parsedDoc(row: Record<string, unknown>): ParsedDocument {
  let doc = parsedDocs.get(row);
  if (!doc) parsedDocs.set(row, (doc = parseTsvector(String(row.kw_document ?? ''))));
  return doc;
}

/** Leaves recall_keyword_matches counts at most (migration 0010 takes 256; one more entry counts the matches). */
const MAX_COUNTED_LEAVES = 255;
/**
 * Questions matching at most this many messages of the scope are ranked over every match
 * (keyword-window.ts); above it, over the best BM25_CANDIDATES by ts_rank. Reading larger match sets
 * in parts cost common-word discover 2–4× its p50 (bench:postgres, 2,000-message project); LoCoMo's
 * and MemoryBank's projects stay below it.
 */
const PART_READ_MATCHES = 1_000;

/** A scope's size and mean document length are re-read after this many ms. */
const SIZE_TTL_MS = 30_000;
/** Per pool and scope: messages and mean document length (counting a large project costs more than a search). */
const sizeCache = new WeakMap<object, Map<string, { messages: number; averageLength: number; at: number }>>();

/**
 * BM25's scope size: the visible messages of the scope and their mean length in tokens as FTS5
 * counts it (the project token included), read as
 * recall_scoped under row-level security (nothing outside the scope is counted) and cached per
 * scope for SIZE_TTL_MS: both move slowly, and IDF and length normalisation barely change with them.
 */
async function scopeSize(pool: pg.Pool, tx: pg.PoolClient, rls: RlsScope): Promise<Pick<Bm25Stats, 'messages' | 'averageLength'>> {
  const key = 'projectId' in rls ? `p:${rls.projectId}` : `s:${[...rls.sessionIds].sort().join(',')}`;
  let cache = sizeCache.get(poolIdentity(pool));
  if (!cache) sizeCache.set(poolIdentity(pool), (cache = new Map()));
  const known = cache.get(key);
  const now = Date.now();
  if (known && now - known.at < SIZE_TTL_MS) return known;
  const scope = 'projectId' in rls ? 'k.project_id = $1' : 'k.session_id = any($1)';
  const row = (
    await tx.query(
      // A document without lexemes is 0 long (FTS5 counts it in the mean); a message of a project is one token longer (SCOPE_TOKEN_LENGTH).
      `select count(*)::int as n,
              coalesce(avg(coalesce((select sum(cardinality(u.positions)) from unnest(k.document) u), 0) + case when k.project_id is null then 0 else ${SCOPE_TOKEN_LENGTH} end), 1)::float8 as avg
         from message_keywords k where ${scope} and k.visibility in ${VISIBLE_SQL}`,
      ['projectId' in rls ? rls.projectId : [...rls.sessionIds]],
    )
  ).rows[0] as { n: number; avg: number };
  const out = { messages: Math.max(Number(row.n), 1), averageLength: Number(row.avg), at: now };
  if (cache.size >= 10_000) cache.clear();
  cache.set(key, out);
  return out;
}
