/**
 * The write path for messages: each message and its keyword-index row are written in ONE
 * transaction, so a reader never sees a message that the keyword search cannot find. This is the
 * minimum the search needs; the full store port (edits, visibility, moves, lineage) is still to come
 * (README "What is still to come").
 */
import { eq, sql } from 'drizzle-orm';
import type { RecallPostgres } from './database.js';
import type { MessageRole, Visibility } from './enums.js';
import { documentSql, documentText, PG_KEYWORD_TOKENIZER_VERSION } from './keyword-text.js';
import { messageKeywords, messages, sessions } from './tables.js';

/** One message to append to a session. */
export interface NewPostgresMessage {
  role: MessageRole;
  content: string;
  visibility?: Visibility;
  externalId?: string | null;
  createdAt?: number;
}

/** Appends messages to a session (which must exist) and indexes them; returns their ids in order. */
export async function insertMessages(db: RecallPostgres, sessionId: string, rows: readonly NewPostgresMessage[]): Promise<number[]> {
  if (rows.length === 0) return [];
  return db.orm.transaction(async (tx) => {
    const inserted = await tx
      .insert(messages)
      .values(
        rows.map((r) => ({
          sessionId,
          role: r.role,
          content: r.content,
          visibility: r.visibility ?? 'live',
          externalId: r.externalId ?? null,
          ...(r.createdAt === undefined ? {} : { createdAt: r.createdAt }),
        })),
      )
      .returning({ id: messages.id });
    const ids = inserted.map((r) => r.id);
    // The session's project for the keyword rows' scope copy (migration 0003), FOR SHARE so a move waits.
    const [session] = await tx.select({ projectId: sessions.projectId }).from(sessions).where(eq(sessions.id, sessionId)).for('share');
    await tx.insert(messageKeywords).values(
      ids.map((messageId, i) => ({
        messageId,
        document: sql`${documentSql(documentText(rows[i]!.content))}`,
        tokenizerVersion: PG_KEYWORD_TOKENIZER_VERSION,
        sessionId,
        projectId: session?.projectId ?? null,
        role: rows[i]!.role,
        visibility: rows[i]!.visibility ?? 'live',
      })),
    );
    return ids;
  });
}
