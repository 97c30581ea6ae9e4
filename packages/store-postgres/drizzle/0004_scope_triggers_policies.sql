-- Scope columns of migration 0003 kept true, simpler row-level-security policies, and the keyword
-- match function. Hand-written (drizzle-kit generate --custom): triggers, policies and functions
-- are beyond drizzle's table builder.
--
-- 1. A move rewrites the copies of sessions.project_id in the same transaction (the same statement,
--    in fact: an AFTER ROW trigger of the UPDATE), so message_keywords and semantic_chunks never show
--    a session under a project it has left. Appends lock their session FOR SHARE while they write
--    the copies, so a concurrent move waits for them and then rewrites their rows too.
CREATE FUNCTION recall_scope_follow_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE message_keywords SET project_id = NEW.project_id WHERE session_id = NEW.id;
  UPDATE semantic_chunks SET project_id = NEW.project_id WHERE session_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_scope_au AFTER UPDATE OF project_id ON sessions
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION recall_scope_follow_session();
--> statement-breakpoint
-- 2. Rewinds, compaction and deletes (and anything else that changes a message's visibility, role
--    or session) rewrite the message's copies in the same transaction.
CREATE FUNCTION recall_scope_follow_message() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  project text := (SELECT project_id FROM sessions WHERE id = NEW.session_id);
BEGIN
  UPDATE message_keywords SET session_id = NEW.session_id, project_id = project, role = NEW.role, visibility = NEW.visibility WHERE message_id = NEW.id;
  UPDATE semantic_chunks SET session_id = NEW.session_id, project_id = project, role = NEW.role, visibility = NEW.visibility WHERE message_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_scope_au AFTER UPDATE OF visibility, role, session_id ON messages
  FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.role IS DISTINCT FROM NEW.role OR OLD.session_id IS DISTINCT FROM NEW.session_id)
  EXECUTE FUNCTION recall_scope_follow_message();
--> statement-breakpoint
-- 3. The policies of keyword rows and chunks become conditions on the row itself (equality on its
--    project copy, or membership of its session in the explicit list), instead of an EXISTS
--    subquery per row. The settings are read once per statement (scalar subqueries → InitPlans),
--    so the project condition can be an index condition. Fail-closed as before: with neither
--    setting nothing matches. Sessions and messages keep their policies of migration 0002.
DROP POLICY message_keywords_scoped ON message_keywords;
--> statement-breakpoint
CREATE POLICY message_keywords_scoped ON message_keywords FOR SELECT TO recall_scoped USING (
  (project_id IS NOT NULL AND project_id = (SELECT nullif(current_setting('recall.project_id', true), '')))
  OR session_id = ANY ((SELECT string_to_array(nullif(current_setting('recall.session_ids', true), ''), ','))::text[])
);
--> statement-breakpoint
DROP POLICY semantic_chunks_scoped ON semantic_chunks;
--> statement-breakpoint
CREATE POLICY semantic_chunks_scoped ON semantic_chunks FOR SELECT TO recall_scoped USING (
  (project_id IS NOT NULL AND project_id = (SELECT nullif(current_setting('recall.project_id', true), '')))
  OR session_id = ANY ((SELECT string_to_array(nullif(current_setting('recall.session_ids', true), ''), ','))::text[])
);
--> statement-breakpoint
-- 4. The keyword match of a scoped read. Why a SECURITY DEFINER function: under row-level security
--    PostgreSQL evaluates a policy before any non-leakproof condition of the query, and `@@`
--    (ts_match_vq) is not leakproof, so for recall_scoped the GIN index could serve only the project
--    column and every row of the project was read and matched (marking `@@` LEAKPROOF needs a
--    superuser, which managed services do not give). This function runs as the tables' owner, so
--    `project_id = … AND document @@ …` is one GIN index condition. Why it cannot widen the scope:
--    it takes NO scope argument — it reads the same transaction-local settings the policies read
--    (recall.project_id, else recall.session_ids) and returns nothing when neither is set; its
--    conditions are fixed in its body and its arguments only narrow (roles, excluded sessions, a
--    limit of at most 500); its search_path is pinned; it returns message ids, session ids and
--    ranks only, and the caller reads the messages themselves as recall_scoped, under the policies
--    of sessions and messages (tested: it never returns another project's rows, nor any row
--    unscoped). Only recall_scoped may call it.
CREATE FUNCTION recall_keyword_matches(q tsquery, roles text[], exclude text[], lim integer)
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
  -- EXECUTE: planned for these values each time (a cached generic plan would not know the query).
  RETURN QUERY EXECUTE
    'select k.message_id, k.session_id, ts_rank(''{0, 0, 0.5, 1}''::real[], k.document, $3, 1)
       from public.message_keywords k
      where ' || scope || ' and k.document @@ $3 and k.visibility in (''live'', ''compacted'')
        and (cardinality($4) = 0 or k.role = any($4))
        and not (k.session_id = any($5) and k.visibility = ''live'')
        and not exists (select 1 from public.sessions s where s.id = k.session_id and s.hidden)
      order by 3 desc, 1 desc
      limit least(greatest($6, 0), 500)'
    USING project, ids, q, coalesce(roles, '{}'::text[]), coalesce(exclude, '{}'::text[]), lim;
END $fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION recall_keyword_matches(tsquery, text[], text[], integer) TO recall_scoped;
