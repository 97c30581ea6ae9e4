-- Team-mode rules that drizzle's table builder cannot express.
--
-- 1. A content edit deletes the message's semantic chunks (they no longer match its text), in the
--    same transaction as the edit, as SQLite's messages_semantic_content_au trigger does.
CREATE FUNCTION recall_chunks_follow_content() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM semantic_chunks WHERE message_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_semantic_content_au AFTER UPDATE OF content ON messages
  FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION recall_chunks_follow_content();
--> statement-breakpoint
-- 2. The change feed: every committed write a client can see is announced on channel
--    recall_changes (LISTEN/NOTIFY; delivered at commit, identical payloads of one transaction
--    folded into one). Sessions announce their id and old/new project (moves); messages and
--    projects announce per statement, so a bulk import sends one notification, not one per row.
CREATE FUNCTION recall_notify_session() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  PERFORM pg_notify('recall_changes', json_build_object(
    'kinds', json_build_array('sessions'),
    'sessionIds', json_build_array(r.id),
    'projectIds', (SELECT coalesce(json_agg(DISTINCT p), '[]'::json) FROM unnest(ARRAY[
      CASE WHEN TG_OP <> 'INSERT' THEN OLD.project_id END,
      CASE WHEN TG_OP <> 'DELETE' THEN NEW.project_id END]) AS p WHERE p IS NOT NULL))::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_notify AFTER INSERT OR UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION recall_notify_session();
--> statement-breakpoint
CREATE FUNCTION recall_notify_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('recall_changes', json_build_object('kinds', TG_ARGV)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_notify AFTER INSERT OR UPDATE OR DELETE ON messages FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_kind('messages', 'sessions');
--> statement-breakpoint
CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE ON projects FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_kind('projects');
--> statement-breakpoint
CREATE TRIGGER project_folders_notify AFTER INSERT OR UPDATE OR DELETE ON project_folders FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_kind('projects');
--> statement-breakpoint
CREATE TRIGGER semantic_projects_notify AFTER INSERT OR UPDATE OR DELETE ON semantic_projects FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_kind('index');
--> statement-breakpoint
-- 3. Defence in depth for isolation: scoped reads run as role recall_scoped (SET LOCAL ROLE) with
--    SET LOCAL recall.project_id (a project's scope) or recall.session_ids (an explicit list of
--    sessions, comma-separated: a project-less session's own history). For that role, row-level security shows only the
--    sessions of that scope — and messages, keyword rows and chunks only of visible sessions — so
--    even a query that forgot its WHERE returns nothing of another project. Fail-closed: with
--    neither setting, the role sees no session at all. The writer (the table owner) is not
--    subject to the policies (no FORCE): it is never used for scoped reads.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'recall_scoped') THEN
    CREATE ROLE recall_scoped NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- another database of this cluster created it at the same moment (roles are cluster-wide)
END $$;
--> statement-breakpoint
GRANT recall_scoped TO CURRENT_USER;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO recall_scoped;
--> statement-breakpoint
GRANT SELECT ON projects, project_folders, sessions, messages, message_keywords, semantic_fingerprints, semantic_projects, semantic_chunks TO recall_scoped;
--> statement-breakpoint
ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE messages ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE message_keywords ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE semantic_chunks ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY sessions_scoped ON sessions FOR SELECT TO recall_scoped USING (
  (project_id IS NOT NULL AND project_id = nullif(current_setting('recall.project_id', true), ''))
  OR id = ANY (string_to_array(nullif(current_setting('recall.session_ids', true), ''), ','))
);
--> statement-breakpoint
CREATE POLICY messages_scoped ON messages FOR SELECT TO recall_scoped USING (EXISTS (SELECT 1 FROM sessions s WHERE s.id = messages.session_id));
--> statement-breakpoint
CREATE POLICY message_keywords_scoped ON message_keywords FOR SELECT TO recall_scoped USING (EXISTS (SELECT 1 FROM messages m WHERE m.id = message_keywords.message_id));
--> statement-breakpoint
CREATE POLICY semantic_chunks_scoped ON semantic_chunks FOR SELECT TO recall_scoped USING (EXISTS (SELECT 1 FROM sessions s WHERE s.id = semantic_chunks.session_id));
