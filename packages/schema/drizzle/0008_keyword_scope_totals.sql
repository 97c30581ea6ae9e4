-- Per-project totals of the keyword index, so keyword ranking takes BM25's statistics from the
-- searched project alone (packages/store/src/keyword-scope-stats.ts): how many `messages_fts` rows
-- carry the project's scope token and their summed length in tokens (FTS5's own per-row sizes,
-- `messages_fts_docsize`, scope token included). FTS5's bm25() takes them over the whole table,
-- every project of the profile, so the order inside one project depended on what the others held.
-- Kept by the store in the same transaction as the index rows (fts-index.ts); keyed by the project
-- the rows were indexed under (the one before a pending move). Derived data: filled by the store on
-- first use (`totals` = 0 below) from the existing index rows, without re-tokenising anything.
-- `revision` grows whenever a project's rows change other than by new messages (a removal, an
-- edit, a move, a rebuild), so a connection may keep the set of a project's rows and extend it with
-- new rows only while it is unchanged. Rows are never deleted (a project without rows keeps 0/0).
CREATE TABLE `keyword_scope_totals` (
	`project_id` text PRIMARY KEY NOT NULL,
	`messages` integer NOT NULL,
	`tokens` integer NOT NULL,
	`revision` integer NOT NULL DEFAULT 0
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `keyword_index_state` ADD `totals` integer NOT NULL DEFAULT 0;
