/**
 * KeywordIndex on PostgreSQL: the tsvector/GIN ranked query of ../keyword-search.ts for every scope
 * the search tool uses — one project, or a list of own-history sessions — with the caller's own live
 * messages left out, an optional role filter, and title hits. It runs inside a row-level-security
 * transaction of that scope (tx.ts `scoped`), so even the ranked query's own filter is backed by the
 * database. The scope and filters are WHERE conditions of the ranked query, before ORDER BY … LIMIT.
 */
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import { findTermSpans, normalizeForSearch } from '@recall/store/portable';
import type { KeywordAnswer, KeywordIndex, KeywordQueryOptions, KeywordQueryScope, KeywordTitleMatch } from '@recall/storage-ports';
import type pg from 'pg';
import { keywordQuery } from '../keyword-text.js';
import { keywordSnippet } from '../snippet.js';
import { scoped, toMessage, VISIBLE_SQL, type RlsScope } from './tx.js';

const clamp = (v: number | undefined, d: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(v ?? d)));
/** Titles examined per query at most (newest sessions first). */
const TITLE_SCAN = 2_000;

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
      const { tsquery, parsed } = keywordQuery(typeof query === 'string' ? query : '', { cjkUnigrams: options.partialCjk !== false });
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
          const rows = (
            await tx.query(
              `select m.*, ts_rank('{0, 0, 0.5, 1}'::real[], k.document, q.query, 1) as rank
                 from (select ${p(tsquery)}::tsquery as query) q
                 join message_keywords k on k.document @@ q.query
                 join messages m on m.id = k.message_id
                 join sessions s on s.id = m.session_id
                where ${scopeSql} and not s.hidden and m.visibility in ${VISIBLE_SQL}
                  ${exclude.length ? `and not (m.session_id = any(${p(exclude)}) and m.visibility = 'live')` : ''}
                  ${roles.length ? `and m.role = any(${p(roles)})` : ''}
                  ${since !== undefined ? `and m.created_at >= ${p(since)}` : ''}
                  ${until !== undefined ? `and m.created_at < ${p(until)}` : ''}
                order by rank desc, m.id desc
                limit ${limit}`,
              params,
            )
          ).rows;
          hits = rows.map((r) => {
            const m = toMessage(r);
            return { messageId: m.id, sessionId: m.sessionId, role: m.role, createdAt: m.createdAt, score: Number(r.rank), snippet: keywordSnippet(m.content, parsed.terms, 240), matchedTerms: termsOf(m.content) };
          });
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
              `select s.id, s.title from sessions s where ${'projectId' in rls ? 's.project_id = $1' : 's.id = any($1)'} and not s.hidden and s.title is not null
                 and not (s.id = any($2)) ${dated} order by s.started_at desc limit ${TITLE_SCAN}`,
              tp,
            )
          ).rows as Array<{ id: string; title: string }>;
          titleHits = titles
            .map((t) => {
              const matchedTerms = termsOf(t.title);
              return { sessionId: t.id, title: t.title, score: matchedTerms.length, matchedTerms };
            })
            .filter((t) => t.score > 0)
            .sort((a, b) => b.score - a.score)
            .slice(0, titleLimit);
        }
        return { hits, titleHits, notes };
      });
    },
  };
}
