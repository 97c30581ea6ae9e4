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
  coverage,
  coverageUnits,
  creditReplies,
  findTermSpans,
  lowWholeWordCoverage,
  normalizeForSearch,
  paraphraseWords,
  REPLY_CREDIT_BM25,
  REPLY_CREDIT_COVERAGE,
  rerankByCoverage,
  scoreTitles,
  searchableContent,
} from '@recall/store/portable';
import type { KeywordAnswer, KeywordIndex, KeywordQueryOptions, KeywordQueryScope, KeywordTitleMatch } from '@recall/storage-ports';
import type pg from 'pg';
import { keywordQuery, type QueryLeaf } from '../keyword-text.js';
import { bm25, leafFrequency, parseTsvector, type Bm25Stats } from './keyword-bm25.js';
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
          // recall_keyword_matches (migration 0008) ranks the scope's matches through the GIN index
          // on (project_id, document) and returns the best `limit` ids, a date range applied inside,
          // before its LIMIT; it reads the scope from the same settings as the policies. The messages
          // themselves are then read here, as recall_scoped under row-level security, and the scope is
          // checked once more on the sessions table, the one membership rule.
          const candidates = Math.min(BM25_CANDIDATES, Math.max(BM25_MIN_CANDIDATES, BM25_CANDIDATE_FACTOR * limit));
          const q = p(tsquery);
          const rows = (
            await tx.query(
              `select m.*, h.rank, (select dk.document::text from message_keywords dk where dk.message_id = m.id) as kw_document, s.source as kw_source
                 from recall_keyword_matches(${q}::tsquery, ${p(roles)}::text[], ${p(exclude)}::text[], ${candidates}, ${p(since ?? null)}::bigint, ${p(until ?? null)}::bigint) h
                 join messages m on m.id = h.message_id
                 join sessions s on s.id = m.session_id
                where ${scopeSql} and not s.hidden and m.visibility in ${VISIBLE_SQL}
                order by h.rank desc, m.id desc`,
              params,
            )
          ).rows;
          const docs = rows.map((r) => parseTsvector(String(r.kw_document ?? '')));
          // Fewer candidates than asked: they are every match, and give the document frequencies.
          const documentFrequency =
            rows.length >= candidates && leaves.length <= MAX_COUNTED_LEAVES ? await documentFrequencies(tx, tsquery, leaves) : leaves.map((l) => docs.filter((d) => leafFrequency(d, l) > 0).length);
          const stats = rows.length > 0 ? { ...(await scopeSize(pool, tx, rls)), documentFrequency } : null;
          const ranked = rows
            .map((r, i) => ({ r, id: Number(r.id), rank: -bm25(docs[i]!, leaves, stats!), automated: AUTOMATED_SOURCES.includes(String(r.kw_source)) ? 1 : 0 }))
            .sort(compareRanked)
            .slice(0, limit);
          const cjkRelaxed = options.partialCjk !== false;
          const words = cjkRelaxed ? paraphraseWords(parsed.terms) : null;
          if (words !== null && ranked.length > 0 && lowWholeWordCoverage(ranked.map((x) => String(x.r.content)), words)) notes.push(PARAPHRASE_NOTE);
          let ordered = ranked.map((x) => ({ x, score: x.rank === 0 ? 0 : -x.rank, text: '' }));
          // CJK questions: the same coverage re-rank of the BM25 candidates as the SQLite search (keyword-coverage.ts).
          const units = cjkRelaxed ? coverageUnits(query, new Set()) : [];
          if (units.length > 0) {
            ordered = rerankByCoverage(
              ordered.map((o) => ({ ...o, text: normalizeForSearch(searchableContent(String(o.x.r.content))) })),
              units,
            );
          }
          // A reply that matches the query shares the score of the question directly before it, as on
          // SQLite (keyword-pairs.ts): the same rule, credit and whole-query guard.
          // `text` is the normalised text the coverage re-rank computed (set whenever `units` is non-empty).
          let pairs = ordered.map(({ x, score, text }) => {
            const m = toMessage(x.r);
            return { m, text, messageId: m.id, sessionId: m.sessionId, role: m.role, score, automated: x.automated === 1, matchedTerms: termsOf(m.content) };
          });
          const distinctTerms = new Set(parsed.terms.map((t) => t.text)).size;
          pairs = creditReplies(pairs, {
            textOf: (h) => h.m.content,
            credit: units.length > 0 ? REPLY_CREDIT_COVERAGE : REPLY_CREDIT_BM25,
            whole: units.length > 0 ? (h) => coverage(h.text, units) >= 1 - 1e-9 : (h) => new Set(h.matchedTerms).size >= distinctTerms,
          });
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

/**
 * Each leaf's document frequency in the scope (recall_keyword_frequencies, migration 0007: the
 * scope from the same settings as the policies; a message holding a leaf matches the OR-ed query,
 * so counting over the query's matches is exact).
 */
async function documentFrequencies(tx: pg.PoolClient, tsquery: string, leaves: readonly QueryLeaf[]): Promise<number[]> {
  if (leaves.length === 0) return [];
  const row = (await tx.query('select recall_keyword_frequencies($1::tsquery, $2::tsquery[]) as df', [tsquery, leaves.map((l) => l.tsquery)])).rows[0] as { df: number[] | null };
  return row.df ?? leaves.map(() => 0);
}

/** Leaves recall_keyword_frequencies counts at most (migration 0007). */
const MAX_COUNTED_LEAVES = 256;

/** A scope's size and mean document length are re-read after this many ms. */
const SIZE_TTL_MS = 30_000;
/** Per pool and scope: messages and mean document length (counting a large project costs more than a search). */
const sizeCache = new WeakMap<object, Map<string, { messages: number; averageLength: number; at: number }>>();

/**
 * BM25's scope size: the visible messages of the scope and their mean length in tokens, read as
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
      `select count(*)::int as n, coalesce(avg((select sum(cardinality(u.positions)) from unnest(k.document) u)), 1)::float8 as avg
         from message_keywords k where ${scope} and k.visibility in ${VISIBLE_SQL}`,
      ['projectId' in rls ? rls.projectId : [...rls.sessionIds]],
    )
  ).rows[0] as { n: number; avg: number };
  const out = { messages: Math.max(Number(row.n), 1), averageLength: Number(row.avg), at: now };
  if (cache.size >= 10_000) cache.clear();
  cache.set(key, out);
  return out;
}
