-- (Migration 0014, hand-written: drizzle-kit generate --custom.) Additions to a project's allowed set
-- are logged, so @recall/semantic's MatrixCache can catch up with them by a delta instead of
-- reloading the whole set (migration 0013 only told it "something changed: rebuild").
-- Every bump of migration 0013 is now one of two kinds, per project and statement:
-- - an ADDITION: chunk rows that become ready (inserted ready, or updated from another status to
--   ready). A row that was not ready was in no allowed set, so these rows can only join it (the
--   cache reads them back through the allowed-set conditions, which drop those of hidden sessions
--   or invisible messages); their ids are logged in `semantic_additions` under the generation value;
-- - any OTHER change (a ready row edited, deleted, made not ready, moved, re-scoped; messages,
--   sessions, consent — every bump of 0013's other triggers): `rebuild_gen` is set to the new
--   generation and the project's log is emptied. A cache entry built at a generation below
--   `rebuild_gen` must be rebuilt in full; one at or above it may load only the logged ids of the
--   generations after its own (in one statement that re-checks `rebuild_gen`: one snapshot).
-- This is sound because, per project, generation values now increase in commit order: the value is
-- drawn while the project's semantic_generation row is locked (`ON CONFLICT DO UPDATE SET gen =
-- nextval(…)` evaluates after the lock; 0013 drew it before, so a waiting statement could write a
-- value lower than the one committed before it), and the lock is held until commit. So every
-- transaction not visible to a reader that saw generation G has values above G, and the log entries
-- above G are exactly the additions the reader has not seen (as long as no other change set
-- `rebuild_gen` above G). Chunk ids themselves are no high-water mark: a pending row planned early
-- can become ready late. Additions of sessions without a project ('', never cached) and more than
-- 65,536 in one statement for one project count as other changes (no log); at most 256 log rows per
-- project are kept (the oldest dropped, `rebuild_gen` raised to them: an entry that far behind rebuilds).
ALTER TABLE semantic_generation ADD COLUMN rebuild_gen bigint;
--> statement-breakpoint
-- Nothing before this migration was logged: every existing entry rebuilds once.
UPDATE semantic_generation SET rebuild_gen = gen;
--> statement-breakpoint
ALTER TABLE semantic_generation ALTER COLUMN rebuild_gen SET NOT NULL;
--> statement-breakpoint
CREATE TABLE "semantic_additions" (
	"project_id" text NOT NULL,
	"gen" bigint NOT NULL,
	"chunk_ids" bigint[] NOT NULL,
	PRIMARY KEY ("project_id", "gen")
);
--> statement-breakpoint
GRANT SELECT ON semantic_additions TO recall_scoped;
--> statement-breakpoint
ALTER TABLE semantic_additions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY semantic_additions_scoped ON semantic_additions FOR SELECT TO recall_scoped USING (
  project_id = (SELECT nullif(current_setting('recall.project_id', true), ''))
);
--> statement-breakpoint
-- One statement's bumps: `changed` projects (other changes) and (`added_projects`[i], `added_ids`[i])
-- pairs (chunks made ready). One upsert over all its projects in project order (no deadlock between
-- two multi-project statements), each value drawn under the row lock; then, under the same locks,
-- rebuild_gen and the log.
CREATE FUNCTION recall_bump_generations(changed text[], added_projects text[], added_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ch text[];
  r record;
  g bigint;
  cut bigint;
BEGIN
  ch := array(
    SELECT coalesce(x, '') FROM unnest(changed) x
    UNION
    SELECT coalesce(t.pid, '') FROM unnest(added_projects) t(pid) GROUP BY coalesce(t.pid, '') HAVING coalesce(t.pid, '') = '' OR count(*) > 65536);
  INSERT INTO semantic_generation AS sg (project_id, gen, rebuild_gen)
  SELECT d.p, nextval('semantic_generation_seq'), 0
    FROM (SELECT unnest(ch) AS p UNION SELECT coalesce(x, '') FROM unnest(added_projects) x) d ORDER BY d.p
  ON CONFLICT (project_id) DO UPDATE SET gen = nextval('semantic_generation_seq');
  IF cardinality(ch) > 0 THEN
    UPDATE semantic_generation SET rebuild_gen = gen WHERE project_id = ANY (ch);
    DELETE FROM semantic_additions WHERE project_id = ANY (ch);
  END IF;
  FOR r IN
    SELECT t.pid AS p, array_agg(t.cid ORDER BY t.cid) AS ids FROM unnest(added_projects, added_ids) t(pid, cid)
     WHERE t.pid IS NOT NULL AND t.pid <> '' AND NOT (t.pid = ANY (ch)) GROUP BY t.pid
  LOOP
    SELECT sg.gen INTO g FROM semantic_generation sg WHERE sg.project_id = r.p;
    INSERT INTO semantic_additions (project_id, gen, chunk_ids) VALUES (r.p, g, r.ids);
    SELECT x.gen INTO cut FROM semantic_additions x WHERE x.project_id = r.p ORDER BY x.gen DESC OFFSET 256 LIMIT 1;
    IF cut IS NOT NULL THEN
      DELETE FROM semantic_additions WHERE project_id = r.p AND gen <= cut;
      UPDATE semantic_generation SET rebuild_gen = greatest(rebuild_gen, cut) WHERE project_id = r.p;
    END IF;
  END LOOP;
END $$;
--> statement-breakpoint
-- 0013's bump (messages, sessions, consent, chunk deletes): an other change.
CREATE OR REPLACE FUNCTION recall_bump_generation(projects text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_bump_generations(projects, '{}', '{}');
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION recall_generation_chunks_ins() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ps text[];
  ids bigint[];
BEGIN
  SELECT array_agg(coalesce(project_id, '')), array_agg(id) INTO ps, ids FROM new_rows WHERE status = 'ready';
  IF ids IS NOT NULL THEN PERFORM recall_bump_generations('{}', ps, ids); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Updates: a row becoming ready is an addition; a row that was ready and whose status, vector or
-- scope copies changed is an other change (both projects when it moved); lease bookkeeping on
-- pending rows bumps nothing (as in 0013).
CREATE OR REPLACE FUNCTION recall_generation_chunks_upd() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  c_old text[];
  c_new text[];
  a_p text[];
  a_id bigint[];
BEGIN
  SELECT array_agg(coalesce(o.project_id, '')) FILTER (WHERE k.kind = 1), array_agg(coalesce(n.project_id, '')) FILTER (WHERE k.kind = 1),
         array_agg(coalesce(n.project_id, '')) FILTER (WHERE k.kind = 2), array_agg(n.id) FILTER (WHERE k.kind = 2)
    INTO c_old, c_new, a_p, a_id
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   CROSS JOIN LATERAL (SELECT CASE
       WHEN o.status IS DISTINCT FROM 'ready' AND n.status = 'ready' THEN 2
       WHEN o.status = 'ready' AND (o.status IS DISTINCT FROM n.status OR o.embedding IS DISTINCT FROM n.embedding
         OR o.project_id IS DISTINCT FROM n.project_id OR o.session_id IS DISTINCT FROM n.session_id
         OR o.role IS DISTINCT FROM n.role OR o.visibility IS DISTINCT FROM n.visibility
         OR o.fingerprint_id IS DISTINCT FROM n.fingerprint_id OR o.message_id IS DISTINCT FROM n.message_id) THEN 1
       ELSE 0 END AS kind) k;
  IF c_old IS NOT NULL OR a_id IS NOT NULL THEN
    PERFORM recall_bump_generations(coalesce(c_old, '{}') || coalesce(c_new, '{}'), coalesce(a_p, '{}'), coalesce(a_id, '{}'));
  END IF;
  RETURN NULL;
END $$;
