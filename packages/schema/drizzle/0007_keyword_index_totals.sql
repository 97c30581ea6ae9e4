-- Keyword index without BM25 drift. 0002 made `messages_fts` contentless with contentless_delete=1:
-- a DELETE or INSERT OR REPLACE by rowid removes the row's postings but never takes the row out of
-- FTS5's row count and column-length totals (the averages BM25 reads), so every move (scope-token
-- rewrite), edit and delete shifted every score a little, for good. A plain contentless table
-- removes a row with the 'delete' command given the exact values that were indexed, which updates
-- those totals; packages/store/src/fts-index.ts recomputes the values from `messages` (the text)
-- and the session's project as it was indexed. Same columns and tokenizer as 0002.
-- The index is derived data: dropped here and rebuilt by the store on first use (version 0).
DROP TABLE IF EXISTS `messages_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(
	body,
	cjk,
	scope,
	content = '',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
UPDATE `keyword_index_state` SET `version` = 0;
--> statement-breakpoint
-- The project whose scope token a dirty session's messages still carry (the one before the first
-- move since they were last written; NULL = no project, no token): removing such a row needs it.
DROP TRIGGER IF EXISTS `sessions_keyword_scope_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `keyword_scope_dirty`;
--> statement-breakpoint
CREATE TABLE `keyword_scope_dirty` (
	`session_id` text PRIMARY KEY NOT NULL,
	`indexed_project_id` text
) WITHOUT ROWID;
--> statement-breakpoint
-- OR IGNORE keeps the first row: after two moves the messages still carry the first project's token.
CREATE TRIGGER `sessions_keyword_scope_au` AFTER UPDATE OF `project_id` ON `sessions`
WHEN old.`project_id` IS NOT new.`project_id`
BEGIN
	INSERT OR IGNORE INTO `keyword_scope_dirty` (`session_id`, `indexed_project_id`) VALUES (new.`id`, old.`project_id`);
END;
