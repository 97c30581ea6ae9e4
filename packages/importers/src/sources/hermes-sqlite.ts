/**
 * The SQL side of the Hermes reader: Hermes' own `state.db` is another tool's file format, read
 * like a transcript file — opened READ-ONLY through openDatabase (no migrations on a read-only
 * handle, so a foreign schema is read as it is and never written). This module is a source
 * reader, not Recall's storage: it holds the only SQL of @recall/importers (src/sources/ is the
 * package's adapter folder for other tools' own files, the lint rule's home for that SQL), and
 * hermes.ts maps what it returns onto import records.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { HermesSchemaError } from '../errors.js';

/** The columns a table must have (`required`) and may have (`optional`, read as NULL when absent). */
export interface HermesTableSpec {
  required: readonly string[];
  optional: readonly string[];
}

/** An open Hermes state.db: its sessions, its messages in id order, and close(). */
export interface HermesStateDb {
  /** Every session row, oldest first (by started_at, then id). */
  sessions(): Record<string, unknown>[];
  /** Up to `limit` message rows with id > `afterId`, in id order. */
  messagesAfter(afterId: number, limit: number): Record<string, unknown>[];
  close(): void;
}

function columnsOf(db: RecallDatabase, table: string): Set<string> {
  return new Set((db.raw.prepare(`select name from pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name));
}

function selectList(path: string, present: Set<string>, spec: HermesTableSpec, table: string): string {
  const missing = spec.required.filter((c) => !present.has(c));
  if (present.size === 0) throw new HermesSchemaError(path, `no "${table}" table`);
  if (missing.length > 0) throw new HermesSchemaError(path, `table "${table}" lacks ${missing.join(', ')}`);
  return [...spec.required, ...spec.optional].map((c) => (present.has(c) ? `"${c}"` : `null as "${c}"`)).join(', ');
}

/** Opens a state.db read-only and checks its columns; throws HermesSchemaError (hermes_schema_unsupported). */
export function openHermesStateDb(path: string, columns: { sessions: HermesTableSpec; messages: HermesTableSpec }): HermesStateDb {
  const db = openDatabase(path, { readonly: true });
  try {
    const sessionCols = selectList(path, columnsOf(db, 'sessions'), columns.sessions, 'sessions');
    const messageCols = selectList(path, columnsOf(db, 'messages'), columns.messages, 'messages');
    const page = db.raw.prepare(`select ${messageCols} from messages where id > ? order by id limit ?`);
    return {
      sessions: () => db.raw.prepare(`select ${sessionCols} from sessions order by coalesce(started_at, 0), id`).all() as Record<string, unknown>[],
      messagesAfter: (afterId, limit) => page.all(afterId, limit) as Record<string, unknown>[],
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
