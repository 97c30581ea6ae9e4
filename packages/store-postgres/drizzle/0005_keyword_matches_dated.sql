-- recall_keyword_matches with a date range (session_search's since/until): the same function as in
-- 0004 — no scope argument, the scope read from the policies' transaction settings, arguments that
-- only narrow, pinned search_path, EXECUTE for recall_scoped only — plus `since` (inclusive) and
-- `until` (exclusive) on the message's created_at, applied before the LIMIT so a dated search
-- cannot lose an older range behind newer matches. Keyword rows carry no time, so the range is a
-- primary-key probe into messages per matching row; undated searches keep the 0004 function.
CREATE FUNCTION recall_keyword_matches_dated(q tsquery, roles text[], exclude text[], lim integer, since bigint, until bigint)
  RETURNS TABLE (message_id bigint, session_id text, rank real)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $fn$
DECLARE
  project text := nullif(current_setting('recall.project_id', true), '');
  ids text[] := string_to_array(nullif(current_setting('recall.session_ids', true), ''), ',');
  scope text;
BEGIN
  IF project IS NOT NULL THEN
    scope := 'k.project_id = $1';
  ELSIF ids IS NOT NULL AND cardinality(ids) > 0 THEN
    scope := 'k.session_id = any($2)';
  ELSE
    RETURN;
  END IF;
  RETURN QUERY EXECUTE
    'select k.message_id, k.session_id, ts_rank(''{0, 0, 0.5, 1}''::real[], k.document, $3, 1)
       from public.message_keywords k
       join public.messages m on m.id = k.message_id
      where ' || scope || ' and k.document @@ $3 and k.visibility in (''live'', ''compacted'')
        and (cardinality($4) = 0 or k.role = any($4))
        and not (k.session_id = any($5) and k.visibility = ''live'')
        and ($7::bigint is null or m.created_at >= $7) and ($8::bigint is null or m.created_at < $8)
        and not exists (select 1 from public.sessions s where s.id = k.session_id and s.hidden)
      order by 3 desc, 1 desc
      limit least(greatest($6, 0), 500)'
    USING project, ids, q, coalesce(roles, '{}'::text[]), coalesce(exclude, '{}'::text[]), lim, since, until;
END $fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION recall_keyword_matches_dated(tsquery, text[], text[], integer, bigint, bigint) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION recall_keyword_matches_dated(tsquery, text[], text[], integer, bigint, bigint) TO recall_scoped;
