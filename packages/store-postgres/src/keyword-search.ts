/**
 * Keyword search inside ONE project on PostgreSQL. The project filter (sessions.project_id, the
 * only membership rule) is a WHERE condition of the ranked query itself, before ORDER BY … LIMIT,
 * so a busy other project can neither leak rows into the result nor push this project's rows out of
 * the limit. Hidden sessions and rewound/deleted messages are excluded the same way.
 *
 * Ranking: `ts_rank(weights, document, query, 1)` with weights {D 0, C 0, B 0.5, A 1}, i.e. the
 * SQLite BM25 column weights (body 1.0, cjk 0.5), normalisation 1 (divide by 1 + log(length)) as a
 * stand-in for BM25's length normalisation. ts_rank (weighted term frequency) is the closer analogue
 * of BM25 over OR-ed question terms; ts_rank_cd (cover density) rewards the query terms' proximity,
 * which the SQLite search does not, and no BM25 extension ships with Debian's PostgreSQL 15. ts_rank
 * has no IDF: a common term counts as much as a rare one — the known difference from the SQLite
 * ranking, to be measured on the dev set before team mode relies on it (README).
 */
import { sql } from 'drizzle-orm';
import type { RecallPostgres } from './database.js';
import { VISIBLE_VISIBILITIES } from './enums.js';
import { InvalidKeywordSearchError } from './errors.js';
import { keywordQuery } from './keyword-text.js';
import { keywordSnippet } from './snippet.js';

export const DEFAULT_PG_KEYWORD_LIMIT = 20;
export const MAX_PG_KEYWORD_LIMIT = 500;
export const DEFAULT_PG_SNIPPET_CHARS = 240;

/** Arguments of searchKeyword. */
export interface PostgresKeywordSearch {
  /** The one project searched (sessions.project_id). */
  projectId: string;
  query: string;
  /** 1..500, default 20. */
  limit?: number;
  /** Approximate snippet length, 40..2000, default 240. */
  snippetChars?: number;
}

/** One matching message, best first. */
export interface PostgresKeywordHit {
  messageId: number;
  sessionId: string;
  /** ts_rank score (higher is better); comparable only within one result. */
  rank: number;
  /** An excerpt around the first match, matches marked « ». */
  snippet: string;
  createdAt: number;
}

export interface PostgresKeywordResult {
  hits: PostgresKeywordHit[];
  /** The tsquery that was run (null: the query had nothing searchable, hits is empty). */
  tsquery: string | null;
  /** Remarks from the query parser (truncation, stop-words only, no searchable words). */
  notes: string[];
}

interface Row extends Record<string, unknown> {
  id: string | number;
  session_id: string;
  content: string;
  created_at: string | number;
  rank: number;
}

export async function searchKeyword(db: RecallPostgres, args: PostgresKeywordSearch): Promise<PostgresKeywordResult> {
  if (typeof args.projectId !== 'string' || args.projectId === '') throw new InvalidKeywordSearchError('projectId must be a non-empty string');
  const limit = args.limit ?? DEFAULT_PG_KEYWORD_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PG_KEYWORD_LIMIT) {
    throw new InvalidKeywordSearchError(`limit must be an integer in 1..${MAX_PG_KEYWORD_LIMIT}`);
  }
  const size = Math.min(2000, Math.max(40, Math.floor(args.snippetChars ?? DEFAULT_PG_SNIPPET_CHARS)));
  const { tsquery, parsed } = keywordQuery(typeof args.query === 'string' ? args.query : '');
  const notes = [...parsed.notes];
  if (tsquery === null) return { hits: [], tsquery, notes };
  const visible = sql.join(
    VISIBLE_VISIBILITIES.map((v) => sql`${v}`),
    sql`, `,
  );
  // The project, visibility and match are conditions on the keyword row (its scope copies,
  // migration 0003: one GIN index over project_id + document), ranked and limited before the
  // messages are read; sessions.project_id, the membership rule, is checked again on the way out.
  const result = await db.orm.execute<Row>(sql`
    select m.id, m.session_id, m.content, m.created_at, h.rank
      from (select k.message_id, ts_rank('{0, 0, 0.5, 1}'::real[], k.document, q.query, 1) as rank
              from (select ${tsquery}::tsquery as query) q
              join message_keywords k on k.document @@ q.query
             where k.project_id = ${args.projectId}
               and k.visibility in (${visible})
               and not exists (select 1 from sessions hs where hs.id = k.session_id and hs.hidden)
             order by rank desc, k.message_id desc
             limit ${limit}) h
      join messages m on m.id = h.message_id
      join sessions s on s.id = m.session_id
     where s.project_id = ${args.projectId}
       and not s.hidden
       and m.visibility in (${visible})
     order by h.rank desc, m.id desc`);
  const hits = result.rows.map((r) => ({
    messageId: Number(r.id),
    sessionId: r.session_id,
    rank: Number(r.rank),
    snippet: keywordSnippet(r.content, parsed.terms, size),
    createdAt: Number(r.created_at),
  }));
  return { hits, tsquery, notes };
}
