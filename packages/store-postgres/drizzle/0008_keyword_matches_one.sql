-- One keyword-matches function instead of two: recall_keyword_matches (0004) and
-- recall_keyword_matches_dated (0005) repeated one body. The new recall_keyword_matches takes
-- optional `since` (inclusive) and `until` (exclusive) bounds on the message's created_at (default
-- NULL: no bound) and keeps every rule of both: no scope argument (the scope is read from the
-- policies' transaction settings, recall.project_id else recall.session_ids, nothing without
-- them), arguments that only narrow, a limit of at most 500, pinned search_path, SECURITY DEFINER,
-- EXECUTE for recall_scoped only. The date range is applied before the LIMIT (a dated search cannot
-- lose an older range behind newer matches); the join to messages it needs (keyword rows carry no
-- time) is written into the statement only when a bound is given, so an undated search is the
-- 0004 statement: one GIN index condition on (project_id, document).
DROP FUNCTION recall_keyword_matches_dated(tsquery, text[], text[], integer, bigint, bigint);
--> statement-breakpoint
DROP FUNCTION recall_keyword_matches(tsquery, text[], text[], integer);
--> statement-breakpoint
CREATE FUNCTION recall_keyword_matches(q tsquery, roles text[], exclude text[], lim integer, since bigint DEFAULT NULL, until bigint DEFAULT NULL)
  RETURNS TABLE (message_id bigint, session_id text, rank real)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $fn$
DECLARE
  project text := nullif(current_setting('recall.project_id', true), '');
  ids text[] := string_to_array(nullif(current_setting('recall.session_ids', true), ''), ',');
  scope text;
  dated boolean := since IS NOT NULL OR until IS NOT NULL;
BEGIN
  IF project IS NOT NULL THEN
    scope := 'k.project_id = $1';
  ELSIF ids IS NOT NULL AND cardinality(ids) > 0 THEN
    scope := 'k.session_id = any($2)';
  ELSE
    RETURN;
  END IF;
  -- EXECUTE: planned for these values each time (a cached generic plan would not know the query).
  RETURN QUERY EXECUTE
    'select k.message_id, k.session_id, ts_rank(''{0, 0, 0.5, 1}''::real[], k.document, $3, 1)
       from public.message_keywords k'
    || CASE WHEN dated THEN ' join public.messages m on m.id = k.message_id' ELSE '' END || '
      where ' || scope || ' and k.document @@ $3 and k.visibility in (''live'', ''compacted'')
        and (cardinality($4) = 0 or k.role = any($4))
        and not (k.session_id = any($5) and k.visibility = ''live'')'
    || CASE WHEN since IS NOT NULL THEN ' and m.created_at >= $7' ELSE '' END
    || CASE WHEN until IS NOT NULL THEN ' and m.created_at < $8' ELSE '' END || '
        and not exists (select 1 from public.sessions s where s.id = k.session_id and s.hidden)
      order by 3 desc, 1 desc
      limit least(greatest($6, 0), 500)'
    USING project, ids, q, coalesce(roles, '{}'::text[]), coalesce(exclude, '{}'::text[]), lim, since, until;
END $fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer, bigint, bigint) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer, bigint, bigint) TO recall_scoped;
