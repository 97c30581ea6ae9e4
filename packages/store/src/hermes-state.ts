/**
 * `@recall/store/hermes-state`: reading Hermes' own `state.db`, another tool's SQLite file, for the
 * Hermes importer (@recall/importers maps what this returns onto import records). The file is
 * opened READ-ONLY through openDatabase (no migrations on a read-only handle, so the foreign schema
 * is read as it is and never written). The caller names the columns it reads per table: a missing
 * optional column reads as null, a missing table or required column is a HermesStateSchemaError
 * (`hermes_schema_unsupported`). This is the only SQL that reads a Hermes file; it lives here, in
 * the SQLite adapter, because SQL is written only in the storage packages (tooling/scripts/lint-rules.mjs).
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { HermesStateSchemaError, ValidationError } from './errors.js';

/** The columns read from one table: `required` ones must exist, `optional` ones read as null when absent. */
export interface HermesTableSpec {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

/** The columns read from Hermes' `sessions` and `messages` tables. */
export interface HermesStateColumns {
  readonly sessions: HermesTableSpec;
  readonly messages: HermesTableSpec;
}

/** One row of a table read with `spec`: every named column, as SQLite returned it (null when absent or NULL). */
export type HermesRow<S extends HermesTableSpec> = { [K in S['required'][number] | S['optional'][number]]: unknown };

/** An open Hermes state.db: its sessions, its messages in id order, and close(). */
export interface HermesStateReader<C extends HermesStateColumns = HermesStateColumns> {
  /** Every session row, oldest first (by started_at, then id). */
  sessions(): HermesRow<C['sessions']>[];
  /** Up to `limit` message rows with id > `afterId`, in id order (a cursor: constant memory, resumable). */
  messagesAfter(afterId: number, limit: number): HermesRow<C['messages']>[];
  /** Closes the file. */
  close(): void;
}

const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function columnsOf(db: RecallDatabase, table: string): Set<string> {
  return new Set((db.raw.prepare('select name from pragma_table_info(?)').all(table) as { name: string }[]).map((r) => r.name));
}

function selectList(path: string, present: Set<string>, spec: HermesTableSpec, table: string): string {
  if (present.size === 0) throw new HermesStateSchemaError(path, table, []);
  const missing = spec.required.filter((c) => !present.has(c));
  if (missing.length > 0) throw new HermesStateSchemaError(path, table, missing);
  return [...spec.required, ...spec.optional].map((c) => (present.has(c) ? `"${c}"` : `null as "${c}"`)).join(', ');
}

/**
 * Opens a Hermes state.db read-only and checks its columns against `columns`. Throws
 * HermesStateSchemaError (`hermes_schema_unsupported`) when a table or a required column is
 * missing, and ValidationError (`invalid_input`) for a column name that is not a plain identifier.
 */
export function openHermesState<const C extends HermesStateColumns>(path: string, columns: C): HermesStateReader<C> {
  const bad = [columns.sessions, columns.messages].flatMap((s) => [...s.required, ...s.optional]).filter((c) => !COLUMN_NAME.test(c));
  if (bad.length > 0) throw new ValidationError(`Not a column name: ${bad.map((c) => JSON.stringify(c)).join(', ')}.`, { columns: bad.join(',') });
  const db = openDatabase(path, { readonly: true });
  try {
    const sessionCols = selectList(path, columnsOf(db, 'sessions'), columns.sessions, 'sessions');
    const messageCols = selectList(path, columnsOf(db, 'messages'), columns.messages, 'messages');
    const sessions = db.raw.prepare(`select ${sessionCols} from sessions order by coalesce(started_at, 0), id`);
    const page = db.raw.prepare(`select ${messageCols} from messages where id > ? order by id limit ?`);
    return {
      sessions: () => sessions.all() as HermesRow<C['sessions']>[],
      messagesAfter: (afterId, limit) => page.all(afterId, Math.max(1, Math.floor(limit))) as HermesRow<C['messages']>[],
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The error openHermesState throws for a file it cannot read as a Hermes state.db. */
export { HermesStateSchemaError } from './errors.js';
