/**
 * Base class of every error the store throws. `code` is a stable string to switch on (the subclasses
 * below; match on `code`, not on the message), `details` the ids involved. Nothing was written when
 * a store function throws one.
 */
export class StoreError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/**
 * Code `invalid_input`: an argument failed validation (empty or too long name, bad id, oversized
 * content, bad cursor, …); `details.issues` holds the zod issues when zod found them.
 */
export class ValidationError extends StoreError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_input', message, details);
  }
}

/** Code `project_not_found`: no project with that id in this profile (`details.projectId`). */
export class ProjectNotFoundError extends StoreError {
  constructor(projectId: string) {
    super('project_not_found', `No project ${JSON.stringify(projectId)} in this profile.`, { projectId });
  }
}

/** Code `session_not_found`: no session with that id in this profile (`details.sessionId`). */
export class SessionNotFoundError extends StoreError {
  constructor(sessionId: string) {
    super('session_not_found', `No session ${JSON.stringify(sessionId)} in this profile.`, { sessionId });
  }
}

/** Code `message_not_found`: no message with that id in this profile (`details.messageId`). */
export class MessageNotFoundError extends StoreError {
  constructor(messageId: number) {
    super('message_not_found', `No message ${messageId} in this profile.`, { messageId });
  }
}

/**
 * Code `project_has_sessions`: `deleteProject` refused because sessions (hidden ones included) still
 * belong to the project (`details.sessionCount`); move them first, or archive the project.
 */
export class ProjectHasSessionsError extends StoreError {
  constructor(projectId: string, sessionCount: number) {
    super(
      'project_has_sessions',
      `Project ${projectId} still owns ${sessionCount} conversation(s): move them to another project (or out of any project) before deleting it, delete it together with its conversations, or archive it instead.`,
      { projectId, sessionCount },
    );
  }
}

/**
 * Code `project_archived`: an archived project cannot receive new or moved conversations; unarchive
 * it first (`archiveProject(db, id, false)`).
 */
export class ProjectArchivedError extends StoreError {
  constructor(projectId: string, name?: string) {
    const label = name ? `${JSON.stringify(name)} (${projectId})` : projectId;
    super('project_archived', `Project ${label} is archived: unarchive it before adding conversations to it.`, { projectId, ...(name ? { name } : {}) });
  }
}

/** Code `folder_in_use`: the normalised folder already belongs to another project (`details.projectId`). */
export class FolderInUseError extends StoreError {
  constructor(path: string, projectId: string) {
    super('folder_in_use', `Folder ${path} already belongs to project ${projectId}.`, { path, projectId });
  }
}

/**
 * Code `invalid_folder`: the path cannot be a project folder (`details.path`, `details.reason`):
 * `relative` (only absolute paths), `root` (`/`, a drive or share root would cover every folder) or
 * `home` (the user's home folder, accepted only with `confirmHome: true`). Thrown before anything is
 * written, so a bulk import may catch it and map the conversation to no project.
 */
export class FolderPathError extends StoreError {
  constructor(path: string, reason: 'relative' | 'root' | 'home') {
    const why = {
      relative: 'a project folder must be an absolute path',
      root: 'a filesystem root cannot be a project folder (it would cover every folder)',
      home: 'this is your home folder, which would cover every folder below it; it can be a project folder only when you confirm that explicitly',
    }[reason];
    super('invalid_folder', `Folder ${JSON.stringify(path)} refused: ${why}.`, { path, reason });
  }
}

/**
 * Code `session_exists`: `createSession` was given an id that is already taken (`upsertSession` updates instead).
 */
export class SessionExistsError extends StoreError {
  constructor(sessionId: string) {
    super('session_exists', `Session ${JSON.stringify(sessionId)} already exists.`, { sessionId });
  }
}

/**
 * Code `invalid_lineage`: a parent/lineage combination the store refuses — a non-root session without
 * a parent, a root with one, a compression or delegation child put in another project than its
 * parent, or an upsert that would change a session's lineage or parent.
 */
export class LineageError extends StoreError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_lineage', message, details);
  }
}

/**
 * Code `session_already_compressed`: the session already continues in a compression continuation
 * (`details.continuationId`), which is the one to compress next; a second continuation would fork
 * one logical conversation into two live ends.
 */
export class SessionAlreadyCompressedError extends StoreError {
  constructor(sessionId: string, continuationId: string) {
    super('session_already_compressed', `Session ${JSON.stringify(sessionId)} was already compressed and continues in ${JSON.stringify(continuationId)}; compress that session instead.`, {
      sessionId,
      continuationId,
    });
  }
}

/**
 * Code `backup_target_exists`: `backupDatabase` would overwrite an existing file (`details.path`);
 * choose another file or remove it first.
 */
export class BackupTargetExistsError extends StoreError {
  constructor(path: string) {
    super('backup_target_exists', `${path} already exists; choose another file for the backup (a backup never overwrites a file).`, { path });
  }
}

/**
 * Code `backup_invalid`: the file is not a usable Recall database (`details.reason`: `not_sqlite`,
 * `not_recall`, `integrity`, with `details.path`): not SQLite at all, SQLite without Recall's
 * tables, or a database whose `PRAGMA integrity_check` reports damage (first problems in `details.problems`).
 */
export class BackupInvalidError extends StoreError {
  constructor(path: string, reason: 'not_sqlite' | 'not_recall' | 'integrity', problems: string[] = []) {
    const why = {
      not_sqlite: 'it is not a SQLite database',
      not_recall: 'it is a SQLite database but not a Recall one (no projects, sessions and messages tables)',
      integrity: `its integrity check failed (${problems.slice(0, 3).join('; ')})`,
    }[reason];
    super('backup_invalid', `Cannot restore ${path}: ${why}.`, { path, reason, problems: problems.slice(0, 10).join('; ') });
  }
}

/**
 * Code `backup_schema_unknown`: the backup was written by a newer Recall (`details.unknownMigrations`
 * migrations this version does not know); restore it with that version or a newer one.
 */
export class BackupSchemaUnknownError extends StoreError {
  constructor(path: string, unknownMigrations: number) {
    super('backup_schema_unknown', `Cannot restore ${path}: it was written by a newer version of Recall (${unknownMigrations} database change(s) this version does not know). Update Recall, then restore.`, {
      path,
      unknownMigrations,
    });
  }
}

/**
 * Code `restore_target_newer`: the profile being replaced has activity newer than the backup
 * (`details.targetNewest`, `details.backupNewest`, ms since the epoch), so restoring would lose it;
 * pass `force` (`recall restore --force`) to replace it anyway, or back it up first.
 */
export class RestoreTargetNewerError extends StoreError {
  constructor(profilePath: string, targetNewest: number, backupNewest: number) {
    super(
      'restore_target_newer',
      `The profile at ${profilePath} has changes from ${new Date(targetNewest).toISOString()}, newer than the backup (${backupNewest > 0 ? new Date(backupNewest).toISOString() : 'empty'}): restoring would lose them. Back it up first, or replace it anyway with --force.`,
      { path: profilePath, targetNewest, backupNewest },
    );
  }
}

/**
 * Code `hermes_schema_unsupported`: a Hermes `state.db` read through `@recall/store/hermes-state`
 * lacks a table or a required column (`details.path`, `details.table`, `details.missing`: the absent
 * required columns, comma-separated, empty when the whole table is absent). Nothing was written.
 */
export class HermesStateSchemaError extends StoreError {
  /** What is missing, in words (`no "sessions" table`, `table "messages" lacks role, content`). */
  readonly detail: string;
  constructor(path: string, table: string, missing: readonly string[]) {
    const detail = missing.length === 0 ? `no "${table}" table` : `table "${table}" lacks ${missing.join(', ')}`;
    super('hermes_schema_unsupported', `${path} is not a Hermes state.db Recall can read: ${detail}`, { path, table, missing: missing.join(',') });
    this.detail = detail;
  }
}

/** Error codes of a write that failed for want of space: SQLite's, and the system's (ENOSPC, EDQUOT: quota). */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * Code `disk_full`: SQLite could not write because the disk is full (SQLITE_FULL, ENOSPC, a quota)
 * or the database reached its size limit. The write was rolled back, so nothing of it is stored;
 * what was committed before stays. The original error is `cause`.
 */
export class DiskFullError extends StoreError {
  constructor(cause?: unknown) {
    super('disk_full', 'The disk that holds the Recall database is full, so this change was not saved. Free some disk space and try again.');
    this.cause = cause;
  }
}

/**
 * `error` as a {@link DiskFullError} when it is one of the disk-full errors (SQLITE_FULL, ENOSPC,
 * EDQUOT, or already a DiskFullError); any other value is returned unchanged.
 */
export function asDiskFullError(error: unknown): unknown {
  if (error instanceof DiskFullError) return error;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && DISK_FULL_CODES.has(code) ? new DiskFullError(error) : error;
}
