-- The keyword matches and BM25's document frequencies in one call, from one scan. Discover ran
-- recall_keyword_frequencies (0007) as a statement of its own on every call next to
-- recall_keyword_matches (0008), and both read the same GIN matches of the scope. Both are replaced
-- by recall_keyword_matches with two more optional arguments:
--   counted: a tsquery that matches every row `q` matches (the caller passes the OR of the
--            question's leaves); NULL (the default): nothing is counted and the statement is the
--            one of 0008;
--   leaves:  the tsqueries to count.
-- With `counted` given, the scope's visible keyword rows matching `counted` are read once: each
-- row is tested against `q` and the filters (a candidate, ranked by ts_rank as in 0008) and against
-- each leaf, and the first row of the answer is a header (message_id, session_id and rank NULL)
-- whose `frequencies` holds, per leaf, the scope's visible rows matching `counted` and the leaf
-- (what 0007 counted: whatever the roles, the excluded sessions, the dates or hidden sessions), and
-- as one more last entry the rows matching `counted` and `q`. The candidates follow (frequencies
-- NULL), best `lim` by ts_rank, the same rows and order as 0008. `q` NULL: the header only.
-- sets_up_to: when the scope has at most that many rows matching `counted` and `q`, the header also
-- gives how many of them hold each combination of leaves (leaf_sets: one '0'/'1' per leaf, in the
-- order of `leaves`; leaf_set_counts: the rows of each), from which the caller sizes any part of
-- the matches made of the leaves (adapter/keyword-window.ts) without counting again.
-- Every rule of 0007/0008 is kept: no scope argument (the scope is read from the policies'
-- transaction settings, recall.project_id else recall.session_ids, nothing at all without them),
-- arguments that only narrow, a limit of at most 500, at most 256 leaves, pinned search_path,
-- SECURITY DEFINER (under row-level security `@@`, not leakproof, could not use the GIN index),
-- EXECUTE for recall_scoped only. `jit = off`: the counting statement's estimated cost (one `@@`
-- per leaf and row) passes jit_above_cost in a large project, and compiling it cost ~90 ms of a
-- ~300 ms call (EXPLAIN ANALYZE, 100k-message project, 7 leaves) for a statement that runs ~10k
-- rows; nothing here gains from JIT.
DROP FUNCTION recall_keyword_frequencies(tsquery, tsquery[]);
--> statement-breakpoint
DROP FUNCTION recall_keyword_matches(tsquery, text[], text[], integer, bigint, bigint);
--> statement-breakpoint
CREATE FUNCTION recall_keyword_matches(q tsquery, roles text[], exclude text[], lim integer, since bigint DEFAULT NULL, until bigint DEFAULT NULL, counted tsquery DEFAULT NULL, leaves tsquery[] DEFAULT NULL, sets_up_to integer DEFAULT NULL)
  RETURNS TABLE (message_id bigint, session_id text, rank real, frequencies integer[], leaf_sets text[], leaf_set_counts integer[])
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public SET jit = off AS $fn$
DECLARE
  project text := nullif(current_setting('recall.project_id', true), '');
  ids text[] := string_to_array(nullif(current_setting('recall.session_ids', true), ''), ',');
  scope text;
  dated boolean := since IS NOT NULL OR until IS NOT NULL;
  inner_flags text := '';
  flags text := '';
  counts text := '';
  mask text := '';
  n integer := coalesce(cardinality(leaves), 0);
  -- `q` = `counted` (a question without required terms is the OR of its leaves): every row read
  -- matches q, which is then not tested again per row.
  mq text := CASE WHEN q IS NOT NULL AND q = counted THEN 'true' ELSE 'k.document @@ $3' END;
BEGIN
  IF project IS NOT NULL THEN
    scope := 'k.project_id = $1';
  ELSIF ids IS NOT NULL AND cardinality(ids) > 0 THEN
    scope := 'k.session_id = any($2)';
  ELSE
    RETURN;
  END IF;
  IF counted IS NULL THEN
    IF q IS NULL THEN
      RETURN;
    END IF;
    -- EXECUTE: planned for these values each time (a cached generic plan would not know the query).
    RETURN QUERY EXECUTE
      'select k.message_id, k.session_id, ts_rank(''{0, 0, 0.5, 1}''::real[], k.document, $3, 1), null::integer[], null::text[], null::integer[]
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
    RETURN;
  END IF;
  IF n > 256 THEN
    RAISE EXCEPTION 'recall_keyword_matches: at most 256 leaves';
  END IF;
  FOR i IN 1 .. n LOOP
    inner_flags := inner_flags || format(', k.document @@ $10[%s] as f%s', i, i);
    flags := flags || format(', x.f%s', i);
    counts := counts || format('count(*) filter (where w.f%s)::integer, ', i);
    mask := mask || CASE WHEN i > 1 THEN ' || ' ELSE '' END || format('w.f%s::integer::text', i);
  END LOOP;
  -- One scan of the rows matching `counted`. `x` (offset 0: not flattened, so each test runs once
  -- per row) tests each row against q and the leaves; `w` applies the filters to q's matches (AND
  -- stops at the first false) and computes ts_rank for the candidates only. `w` is read twice (the
  -- counts, the best `lim`), so it is materialised: narrow rows (ids, flags, rank), no documents.
  RETURN QUERY EXECUTE
    'with w as materialized (
       select x.message_id, x.session_id, x.mq, x.hit' || flags || ',
              case when x.hit then ts_rank(''{0, 0, 0.5, 1}''::real[], x.document, $3, 1) end as rank
         from (select y.*, y.mq and (cardinality($4) = 0 or y.role = any($4))
                        and not (y.session_id = any($5) and y.visibility = ''live'')'
    || CASE WHEN dated THEN '
                        and exists (select 1 from public.messages m where m.id = y.message_id'
         || CASE WHEN since IS NOT NULL THEN ' and m.created_at >= $7' ELSE '' END
         || CASE WHEN until IS NOT NULL THEN ' and m.created_at < $8' ELSE '' END || ')' ELSE '' END || '
                        and not exists (select 1 from public.sessions s where s.id = y.session_id and s.hidden) as hit
                 from (select k.message_id, k.session_id, k.role, k.visibility, k.document, ' || mq || ' as mq' || inner_flags || '
                         from public.message_keywords k
                        where ' || scope || ' and k.document @@ $9 and k.visibility in (''live'', ''compacted'')
                       offset 0) y
               offset 0) x
     ),
     g as (select ' || CASE WHEN n > 0 THEN mask ELSE '''''' END || ' as leaf_set, count(*)::integer as n from w
            where w.mq and $11 is not null and (select count(*) from w where w.mq) <= $11 group by 1)
     select null::bigint, null::text, null::real, array[' || counts || 'count(*) filter (where w.mq)::integer],
            (select array_agg(g.leaf_set order by g.leaf_set) from g), (select array_agg(g.n order by g.leaf_set) from g)
       from w
     union all
     (select w.message_id, w.session_id, w.rank, null::integer[], null::text[], null::integer[] from w where w.hit order by w.rank desc, w.message_id desc
       limit least(greatest($6, 0), 500))'
    USING project, ids, q, coalesce(roles, '{}'::text[]), coalesce(exclude, '{}'::text[]), lim, since, until, counted, coalesce(leaves, '{}'::tsquery[]), sets_up_to;
END $fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer, bigint, bigint, tsquery, tsquery[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer, bigint, bigint, tsquery, tsquery[], integer) TO recall_scoped;
