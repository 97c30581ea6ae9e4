-- Keyword index (FTS5), custom SQL because drizzle has no virtual tables. Owned by
-- packages/store/src/fts-index.ts, which fills it from JS (SQL cannot segment CJK):
--   body  = Latin text plus overlapping CJK bigrams, cjk = CJK unigrams (packages/store/src/search-text.ts)
--   scope = one opaque token derived from the session's project_id: a pre-filter that lets FTS5
--           intersect a project's rows before ranking. It is NOT authoritative: every query also
--           JOINs sessions.project_id, so a stale token can only hide a row, never leak one.
-- Contentless: the text lives only in `messages`; rowid = messages.id. contentless_delete=1 allows
-- DELETE and INSERT OR REPLACE by rowid. Visibility is not stored: queries JOIN messages for it.
-- porter: English stemming (decided ~ decide); CJK tokens pass through it unchanged.
-- packages/store/src/fts-index.ts holds this exact statement too and recreates the table (then
-- rebuilds it) if a database has another definition, so keep the two identical (a test checks).
CREATE VIRTUAL TABLE `messages_fts` USING fts5(
	body,
	cjk,
	scope,
	content = '',
	contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- Which tokenizer version built messages_fts. 0 = never built: rows that existed before this
-- migration are indexed by the store on first use (ensureKeywordIndex).
CREATE TABLE `keyword_index_state` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `keyword_index_state` (`id`, `version`) VALUES (1, 0);
--> statement-breakpoint
-- Sessions whose project changed since their messages' scope tokens were written. Filled by the
-- trigger below whatever code path changes sessions.project_id; drained by the store, which
-- rewrites those tokens. While it is non-empty the search skips the token pre-filter for safety.
CREATE TABLE `keyword_scope_dirty` (
	`session_id` text PRIMARY KEY NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `sessions_keyword_scope_au` AFTER UPDATE OF `project_id` ON `sessions`
WHEN old.`project_id` IS NOT new.`project_id`
BEGIN
	INSERT OR IGNORE INTO `keyword_scope_dirty` (`session_id`) VALUES (new.`id`);
END;
