-- recall_keyword_frequencies: BM25's document frequencies for the keyword ranking (adapter/keyword.ts,
-- keyword-bm25.ts): for each leaf tsquery, how many visible keyword rows of the caller's scope
-- match both `q` (the whole question) and the leaf. Same rules as recall_keyword_matches (0004): no
-- scope argument — the scope is read from the policies' transaction settings, and without one the
-- answer is NULL; the arguments only narrow (q and the leaves filter the scope's rows, a count never
-- covers another project); pinned search_path; EXECUTE for recall_scoped only. SECURITY DEFINER for
-- the same reason as 0004: under row-level security `@@` (not leakproof) cannot use the GIN index,
-- and the count would read every row of the scope.
CREATE FUNCTION recall_keyword_frequencies(q tsquery, leaves tsquery[])
  RETURNS integer[]
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $fn$
DECLARE
  project text := nullif(current_setting('recall.project_id', true), '');
  ids text[] := string_to_array(nullif(current_setting('recall.session_ids', true), ''), ',');
  scope text;
  counts text := '';
  out integer[];
BEGIN
  IF project IS NOT NULL THEN
    scope := 'k.project_id = $1';
  ELSIF ids IS NOT NULL AND cardinality(ids) > 0 THEN
    scope := 'k.session_id = any($2)';
  ELSE
    RETURN NULL;
  END IF;
  IF leaves IS NULL OR cardinality(leaves) = 0 THEN
    RETURN '{}'::integer[];
  END IF;
  IF cardinality(leaves) > 256 THEN
    RAISE EXCEPTION 'recall_keyword_frequencies: at most 256 leaves';
  END IF;
  FOR i IN 1 .. cardinality(leaves) LOOP
    counts := counts || CASE WHEN i > 1 THEN ', ' ELSE '' END || format('count(*) filter (where k.document @@ $4[%s])::integer', i);
  END LOOP;
  EXECUTE 'select array[' || counts || '] from public.message_keywords k
     where ' || scope || ' and k.document @@ $3 and k.visibility in (''live'', ''compacted'')'
    INTO out USING project, ids, q, leaves;
  RETURN out;
END $fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION recall_keyword_frequencies(tsquery, tsquery[]) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION recall_keyword_frequencies(tsquery, tsquery[]) TO recall_scoped;
