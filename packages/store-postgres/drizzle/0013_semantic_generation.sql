-- (Migration 0013, hand-written: drizzle-kit generate --custom.) The cache generation of a project's
-- allowed set, as @recall/schema's SQLite `semantic_generation` (its migration 0003): @recall/semantic's
-- MatrixCache keeps an in-memory int8 copy of a project's allowed set per gateway process and, on every
-- search, reads the project's generation from the database inside the search's scoped transaction; a
-- different value than the one the copy was built at means "rebuild". So a write made through any
-- gateway is seen by the next search of every other gateway.
-- The triggers mirror the SQLite list one for one (new ready vectors, vector/status changes, deletes,
-- message visibility/role/session changes = rewinds, compaction, deletes, moves of messages; session
-- moves in and out — both projects —, hiding, session deletes; a project switched on/off or to
-- another endpoint), plus the scope copies of migration 0003 on the chunk rows (project, session,
-- role, visibility), which the search reads. Extra bumps only cost a rebuild; a missing one would be
-- a stale scan, so where in doubt they bump. Sessions without a project count as project '' (as on
-- SQLite). Chunk, message and session triggers are statement-level with transition tables (one
-- upsert per statement, not one per row: the worker completes thousands of chunks per statement).
-- Values come from one sequence, so a value is never written twice: a generation read equal to the
-- cached one means no bump committed since (even across a deleted and re-created row). Rows of several
-- projects are upserted in project order (no deadlock between two multi-project statements).
CREATE SEQUENCE semantic_generation_seq;
--> statement-breakpoint
CREATE TABLE "semantic_generation" (
	"project_id" text PRIMARY KEY NOT NULL,
	"gen" bigint NOT NULL
);
--> statement-breakpoint
GRANT SELECT ON semantic_generation TO recall_scoped;
--> statement-breakpoint
-- A row names a project: a scoped transaction reads only its own project's row (as semantic_ann, 0011).
ALTER TABLE semantic_generation ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY semantic_generation_scoped ON semantic_generation FOR SELECT TO recall_scoped USING (
  project_id = (SELECT nullif(current_setting('recall.project_id', true), ''))
);
--> statement-breakpoint
CREATE FUNCTION recall_bump_generation(projects text[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO semantic_generation (project_id, gen)
  SELECT p, nextval('semantic_generation_seq') FROM (SELECT DISTINCT coalesce(x, '') AS p FROM unnest(projects) x) d ORDER BY p
  ON CONFLICT (project_id) DO UPDATE SET gen = excluded.gen;
$$;
--> statement-breakpoint
-- Chunk rows: a ready row inserted or deleted; a row that is or was ready whose status, vector, or
-- scope copies changed (lease bookkeeping on pending rows bumps nothing).
CREATE FUNCTION recall_generation_chunks_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(SELECT project_id FROM new_rows WHERE status = 'ready'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION recall_generation_chunks_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(SELECT project_id FROM old_rows WHERE status = 'ready'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION recall_generation_chunks_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(
    SELECT unnest(ARRAY[o.project_id, n.project_id]) FROM old_rows o JOIN new_rows n ON n.id = o.id
     WHERE (o.status = 'ready' OR n.status = 'ready')
       AND (o.status IS DISTINCT FROM n.status OR o.embedding IS DISTINCT FROM n.embedding
         OR o.project_id IS DISTINCT FROM n.project_id OR o.session_id IS DISTINCT FROM n.session_id
         OR o.role IS DISTINCT FROM n.role OR o.visibility IS DISTINCT FROM n.visibility
         OR o.fingerprint_id IS DISTINCT FROM n.fingerprint_id OR o.message_id IS DISTINCT FROM n.message_id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER semantic_chunks_generation_ai AFTER INSERT ON semantic_chunks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_chunks_ins();
--> statement-breakpoint
CREATE TRIGGER semantic_chunks_generation_ad AFTER DELETE ON semantic_chunks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_chunks_del();
--> statement-breakpoint
CREATE TRIGGER semantic_chunks_generation_au AFTER UPDATE ON semantic_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_chunks_upd();
--> statement-breakpoint
-- Messages with chunks whose visibility, role or session changed: the projects of the old and the new session.
CREATE FUNCTION recall_generation_messages_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(
    SELECT s.project_id FROM old_rows o JOIN new_rows n ON n.id = o.id
      JOIN sessions s ON s.id IN (o.session_id, n.session_id)
     WHERE (o.visibility IS DISTINCT FROM n.visibility OR o.role IS DISTINCT FROM n.role OR o.session_id IS DISTINCT FROM n.session_id)
       AND EXISTS (SELECT 1 FROM semantic_chunks c WHERE c.message_id = n.id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_generation_au AFTER UPDATE ON messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_messages_upd();
--> statement-breakpoint
-- Sessions with chunks moved (old and new project) or hidden/unhidden; deleted sessions (their project).
CREATE FUNCTION recall_generation_sessions_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(
    SELECT unnest(ARRAY[o.project_id, n.project_id]) FROM old_rows o JOIN new_rows n ON n.id = o.id
     WHERE (o.project_id IS DISTINCT FROM n.project_id OR o.hidden IS DISTINCT FROM n.hidden)
       AND EXISTS (SELECT 1 FROM semantic_chunks c WHERE c.session_id = n.id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION recall_generation_sessions_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generation(array(SELECT project_id FROM old_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_generation_au AFTER UPDATE ON sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_sessions_upd();
--> statement-breakpoint
CREATE TRIGGER sessions_generation_ad AFTER DELETE ON sessions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION recall_generation_sessions_del();
--> statement-breakpoint
-- A project switched on, off, or to another endpoint.
CREATE FUNCTION recall_generation_consent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.enabled THEN PERFORM recall_bump_generation(ARRAY[NEW.project_id]); END IF;
  ELSIF OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.endpoint IS DISTINCT FROM NEW.endpoint THEN
    PERFORM recall_bump_generation(ARRAY[NEW.project_id]);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER semantic_projects_generation AFTER INSERT OR UPDATE ON semantic_projects
  FOR EACH ROW EXECUTE FUNCTION recall_generation_consent();
