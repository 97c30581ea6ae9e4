/**
 * Errors of the `recall` CLI and how they end the process. Usage errors (unknown command or flag,
 * missing or malformed argument) exit with code 2 and point at `--help`; typed errors — anything
 * carrying a stable string `code`, from the store, the schema package, the config loader or the
 * CLI itself — exit with code 1 and print that code, so scripts can match on it. Anything else is
 * a bug: exit 1 with code `internal_error` and the stack on stderr. The classes extend the
 * gateway's GatewayError so the same stable-code convention holds across the package.
 */
import { GatewayError } from '@recall/gateway-rpc';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** Wrong invocation: exit code 2. `command` selects which help text to point at. */
export class UsageError extends GatewayError {
  readonly command: string | null;
  constructor(message: string, command: string | null = null) {
    super('usage', message);
    this.name = 'UsageError';
    this.command = command;
  }
}

/** The file given to `recall import` cannot be read. */
export class ImportFileError extends GatewayError {
  constructor(path: string, reason: string) {
    super('import_file_unreadable', `Cannot read ${path}: ${reason}`, { data: { path } });
    this.name = 'ImportFileError';
  }
}

/** `recall import` finished but some lines were rejected (valid lines were imported). */
export class ImportLineErrors extends GatewayError {
  constructor(count: number) {
    super('import_line_errors', `${count} line(s) were rejected; every valid line was imported.`, { data: { count } });
    this.name = 'ImportLineErrors';
  }
}

/** `recall search` got an error result from the tool (the JSON result is printed as well). */
export class SearchFailedError extends GatewayError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'SearchFailedError';
  }
}

/** The stable code of a typed error, or null for an unexpected exception. */
export function stableCode(error: unknown): string | null {
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
    const code = (error as unknown as { code: string }).code;
    // Node's own system errors (ENOENT, ERR_…) are not our stable codes.
    if (/^[a-z][a-z0-9_]*$/.test(code)) return code;
  }
  return null;
}

/** `recall mcp --cwd DIR` / `recall search --cwd DIR`: no project folder covers DIR. */
export class FolderNotInProjectError extends GatewayError {
  constructor(path: string, profile: string) {
    super(
      'folder_not_in_project',
      `Folder ${path} belongs to no project in profile "${profile}". Fix: add it to a project with ` +
        `"recall projects add-folder PROJECT ${path}" (or create one: "recall projects create NAME --folder ${path}"), ` +
        `import its history with "recall import --from claude-code|codex|hermes PATH --project-per-folder", ` +
        `or name the project instead: --project ID|SLUG|NAME.`,
      { data: { path, profile } },
    );
    this.name = 'FolderNotInProjectError';
  }
}

/**
 * A command other than `migrate` given a PostgreSQL storage (`--database`, RECALL_DATABASE_URL or
 * config.json `storage`): code `storage_unsupported`, nothing read or written.
 */
export class StorageNotServedError extends GatewayError {
  constructor(command: string, why?: string) {
    super('storage_unsupported', why ?? `PostgreSQL storage is not served by this command yet ("recall ${command}" works on the profile's SQLite file; "recall migrate" copies a profile into PostgreSQL).`, {
      data: { command, kind: 'postgres' },
    });
    this.name = 'StorageNotServedError';
  }
}

/** `recall index hnsw` on a profile's SQLite file: the HNSW index exists only on a PostgreSQL team database. */
export class TeamDatabaseOnlyError extends GatewayError {
  constructor(what: string, why: string) {
    super('team_database_only', `${what} is a team-database feature (PostgreSQL): ${why}`);
    this.name = 'TeamDatabaseOnlyError';
  }
}

/** `recall index hnsw --project P`: the project has no semantic vectors of the active model yet. */
export class NothingIndexedError extends GatewayError {
  constructor(message: string, projectId: string) {
    super('nothing_indexed', message, { data: { projectId } });
    this.name = 'NothingIndexedError';
  }
}
