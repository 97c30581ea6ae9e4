-- Change counters for other processes' writes, custom SQL (drizzle has no triggers). Read by
-- packages/gateway-rpc/src/external-writes.ts: when `PRAGMA data_version` says another connection
-- committed, the gateway compares a fingerprint per table family to know WHICH change events to send.
-- Row counts and newest ids see inserts, but not a rewind/delete (only `messages.visibility`
-- changes), a hide, a rename or a move (only `sessions.project_id` changes). These triggers count
-- those changes, so the fingerprint stays O(1) (one row here plus max(rowid)) on a million messages.
-- Deliberately NO insert trigger on `messages` or `sessions`: any AFTER INSERT trigger turns every
-- insert inside a bulk import into a statement transaction, at which FTS5 flushes its pending index
-- (ingest fell by ~30 % when one existed); inserts are seen through max(id)/max(rowid) instead.
-- The `UPDATE OF` lists leave out `updated_at` (an append only bumps it: its new message is already
-- seen through max(id)) and `origin_message_id`/`edited_at` (bookkeeping that travels with content).
-- Counters only ever grow; their values mean nothing except "different from before".
CREATE TABLE `change_counter` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`projects` integer NOT NULL DEFAULT 0,
	`sessions` integer NOT NULL DEFAULT 0,
	`messages` integer NOT NULL DEFAULT 0
);
--> statement-breakpoint
INSERT INTO `change_counter` (`id`, `projects`, `sessions`, `messages`) VALUES (1, 0, 0, 0);
--> statement-breakpoint
CREATE TRIGGER `projects_change_ai` AFTER INSERT ON `projects`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_change_au` AFTER UPDATE ON `projects`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_change_ad` AFTER DELETE ON `projects`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_folders_change_ai` AFTER INSERT ON `project_folders`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_folders_change_au` AFTER UPDATE ON `project_folders`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_folders_change_ad` AFTER DELETE ON `project_folders`
BEGIN
	UPDATE `change_counter` SET `projects` = `projects` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_change_au` AFTER UPDATE OF `project_id`, `parent_session_id`, `lineage`, `source`, `title`, `cwd`, `git_repo_root`, `git_branch`, `model`, `started_at`, `ended_at`, `end_reason`, `archived`, `hidden` ON `sessions`
BEGIN
	UPDATE `change_counter` SET `sessions` = `sessions` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_change_ad` AFTER DELETE ON `sessions`
BEGIN
	UPDATE `change_counter` SET `sessions` = `sessions` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_change_au` AFTER UPDATE OF `session_id`, `role`, `content`, `tool_name`, `tool_calls`, `tool_call_id`, `created_at`, `visibility` ON `messages`
BEGIN
	UPDATE `change_counter` SET `messages` = `messages` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_change_ad` AFTER DELETE ON `messages`
BEGIN
	UPDATE `change_counter` SET `messages` = `messages` + 1 WHERE `id` = 1;
END;
