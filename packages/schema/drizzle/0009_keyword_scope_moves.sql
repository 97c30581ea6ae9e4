-- The moves that rewrote a session's keyword scope tokens (packages/store/src/fts-index.ts,
-- reindexSessionsScope, in the rewrite's own transaction): the session and the projects its index
-- rows left and joined (NULL: none). A move bumps the `revision` of exactly those two rows of
-- `keyword_scope_totals` (migration 0008), so a connection that kept a project's row set and phrase
-- counts (keyword-scope-stats.ts) can tell, by the revisions and this log, that only moves (and new
-- messages) happened since, and apply them — the moved session's rows in or out — instead of
-- counting everything again. Derived data: only the newest 1,024 rows are kept; a connection whose
-- last seen `seq` is older counts again. AUTOINCREMENT keeps `seq` growing after the prune.
CREATE TABLE `keyword_scope_moves` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`from_project` text,
	`to_project` text
);
