/**
 * MessageStore on PostgreSQL: appends (idempotent per session + external id, also against a
 * concurrent writer: ON CONFLICT), edits, soft deletes, rewinds and compaction with the keyword
 * index rows written in the same transaction, and the readers of windows.ts. Rules and typed errors
 * are @recall/store's (messages.ts).
 */
import type { Message } from '@recall/rpc-contract';
import { MessageNotFoundError, SessionNotFoundError, ValidationError } from '@recall/store/portable';
import { boundedText, newMessageSchema, parseInput } from '@recall/store/portable';
import type { AppendOutcome, MessageInput, MessageStore } from '@recall/storage-ports';
import { MAX_MESSAGE_CHARS } from '@recall/rpc-contract';
import type pg from 'pg';
import { z } from 'zod';
import { documentText, PG_KEYWORD_TOKENIZER_VERSION, tsvectorLiteral } from '../keyword-text.js';
import { nowMs, toMessage, VISIBLE_SQL, write, type Db, type Tx } from './tx.js';
import { pageOn, segmentsHeadTailOn, segmentWindowOn, windowOn, windowsOn } from './windows.js';

const appendSchema = z.array(newMessageSchema).max(100_000);
const editSchema = boundedText(MAX_MESSAGE_CHARS, `content must be at most ${MAX_MESSAGE_CHARS} characters`);

/** Parses messages to append (ValidationError on bad input). */
export function parseMessages(inputs: readonly MessageInput[]): z.output<typeof appendSchema> {
  return parseInput(appendSchema, inputs, 'messages');
}

/**
 * Re-indexes existing messages (an edit): the document is replaced; the scope copies (session,
 * project, role, visibility — migration 0003) are taken from the message and its session.
 */
async function index(tx: Tx, rows: ReadonlyArray<{ id: number; content: string }>): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into message_keywords (message_id, document, tokenizer_version, session_id, project_id, role, visibility)
     select v.id, v.document, v.version, m.session_id, s.project_id, m.role, m.visibility
       from unnest($1::bigint[], $2::tsvector[], $3::int[]) as v(id, document, version)
       join messages m on m.id = v.id join sessions s on s.id = m.session_id
     on conflict (message_id) do update set document = excluded.document, tokenizer_version = excluded.tokenizer_version`,
    [rows.map((r) => r.id), rows.map((r) => tsvectorLiteral(documentText(r.content))), rows.map(() => PG_KEYWORD_TOKENIZER_VERSION)],
  );
}

/**
 * Indexes freshly inserted messages of one session whose project is `projectId` (read under the
 * session's FOR SHARE lock, so no move can commit in between): documents are the precomputed
 * tsvector literals, the scope copies are written with the row.
 */
async function indexFresh(tx: Tx, sessionId: string, projectId: string | null, rows: ReadonlyArray<{ id: number; document: string; role: string; visibility: string }>): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into message_keywords (message_id, document, tokenizer_version, session_id, project_id, role, visibility)
     select v.id, v.document, $3, $1, $2, v.role, v.visibility from unnest($4::bigint[], $5::tsvector[], $6::text[], $7::text[]) as v(id, document, role, visibility)
     on conflict (message_id) do update set document = excluded.document, tokenizer_version = excluded.tokenizer_version`,
    [sessionId, projectId, PG_KEYWORD_TOKENIZER_VERSION, rows.map((r) => r.id), rows.map((r) => r.document), rows.map((r) => r.role), rows.map((r) => r.visibility)],
  );
}

/** Rows per multi-row INSERT (bounded so one statement's parameters stay small). */
const INSERT_CHUNK = 5000;

/**
 * Inserts validated messages into an existing session inside the caller's transaction: one
 * multi-row `INSERT … SELECT FROM unnest(…) WITH ORDINALITY ORDER BY ord` per 5,000 messages (ids
 * are assigned in input order), `ON CONFLICT (session_id, external_id) DO NOTHING`; a repeated
 * external id (stored earlier or earlier in the same batch) gives the stored row.
 */
export async function insertParsedMessages(tx: Tx, sessionId: string, inputs: z.output<typeof appendSchema>): Promise<AppendOutcome> {
  const out: Message[] = [];
  const fresh: Array<{ id: number; document: string; role: string; visibility: string }> = [];
  let skipped = 0;
  let last = 0;
  const now = nowMs();
  // The session's project for the keyword rows' scope copy; FOR SHARE holds off a move until commit.
  const session = (await tx.query('select project_id from sessions where id = $1 for share', [sessionId])).rows[0];
  if (!session) throw new SessionNotFoundError(sessionId);
  const projectId = (session.project_id as string | null) ?? null;
  for (let from = 0; from < inputs.length; from += INSERT_CHUNK) {
    const batch = inputs.slice(from, from + INSERT_CHUNK);
    const created = batch.map((m) => m.createdAt ?? now);
    // The INSERT is sent first; the keyword documents (the tokenizer, CPU-bound) are computed while
    // PostgreSQL writes the rows, and are simply not used for rows that already existed.
    const pending = tx.query(
        `insert into messages (session_id, role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility)
         select $1, v.role, v.content, v.tool_name, v.tool_calls, v.tool_call_id, v.external_id, v.created_at, v.visibility
           from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])
                with ordinality as v(role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility, ord)
          order by v.ord
         on conflict (session_id, external_id) do nothing returning *`,
        [
          sessionId,
          batch.map((m) => m.role),
          batch.map((m) => m.content),
          batch.map((m) => m.toolName ?? null),
          batch.map((m) => m.toolCalls ?? null),
          batch.map((m) => m.toolCallId ?? null),
          batch.map((m) => m.externalId ?? null),
          created,
          batch.map((m) => m.visibility ?? 'live'),
        ],
    );
    pending.catch(() => {}); // awaited below; a failure surfaces there, after the documents are built
    const documents = batch.map((m) => tsvectorLiteral(documentText(m.content)));
    const inserted = (await pending).rows.sort((a, b) => Number(a.id) - Number(b.id));
    // Returned rows, in id (= input) order: keyed by external id, the rest queued.
    const byExternal = new Map<string, Record<string, unknown>>();
    const anonymous: Array<Record<string, unknown>> = [];
    for (const row of inserted) {
      if (row.external_id === null) anonymous.push(row);
      else byExternal.set(row.external_id as string, row);
    }
    let nextAnonymous = 0;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      const row = m.externalId == null ? anonymous[nextAnonymous++] : byExternal.get(m.externalId);
      if (row) {
        if (m.externalId != null) byExternal.delete(m.externalId);
        fresh.push({ id: Number(row.id), document: documents[i]!, role: row.role as string, visibility: row.visibility as string });
        last = Math.max(last, created[i]!);
        out.push(toMessage(row));
        continue;
      }
      // A repeated external id: the stored row, brought in line with the source's visibility (a deleted row stays deleted).
      const existing = (await tx.query('select * from messages where session_id = $1 and external_id = $2', [sessionId, m.externalId])).rows[0]!;
      if (m.visibility !== undefined && m.visibility !== existing.visibility && existing.visibility !== 'deleted') {
        await tx.query('update messages set visibility = $1 where id = $2', [m.visibility, existing.id]);
        existing.visibility = m.visibility;
      }
      out.push(toMessage(existing));
      skipped++;
    }
  }
  if (fresh.length > 0) {
    await indexFresh(tx, sessionId, projectId, fresh);
    await tx.query('update sessions set updated_at = greatest(updated_at, $1) where id = $2', [Math.max(last, now), sessionId]);
  }
  return { messages: out, inserted: fresh.length, skipped };
}

async function assertSession(tx: Tx, sessionId: string, lock = false): Promise<void> {
  if (!(await tx.query(`select 1 from sessions where id = $1${lock ? ' for share' : ''}`, [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
}

async function getMessageOn(q: Tx | pg.Pool, messageId: number): Promise<Message> {
  if (!Number.isSafeInteger(messageId) || messageId <= 0) throw new ValidationError('message id must be a positive integer', { messageId });
  const row = (await q.query('select * from messages where id = $1', [messageId])).rows[0];
  if (!row) throw new MessageNotFoundError(messageId);
  return toMessage(row);
}

/** The MessageStore of a PostgreSQL team database. */
export function postgresMessages(pool: Db): MessageStore {
  return {
    async append(sessionId, inputs) {
      const data = parseMessages(inputs);
      return write(pool, async (tx) => {
        await assertSession(tx, sessionId, true);
        return insertParsedMessages(tx, sessionId, data);
      });
    },
    async find(messageId) {
      if (!Number.isSafeInteger(messageId)) return undefined;
      const row = (await pool.query('select * from messages where id = $1', [messageId])).rows[0];
      return row ? toMessage(row) : undefined;
    },
    async findMany(messageIds) {
      const out = new Map<number, Message>();
      const ids = [...new Set(messageIds.filter((id) => Number.isSafeInteger(id)))];
      if (ids.length === 0) return out;
      for (const row of (await pool.query('select * from messages where id = any($1::bigint[])', [ids])).rows) {
        const message = toMessage(row);
        out.set(message.id, message);
      }
      return out;
    },
    get: (messageId) => getMessageOn(pool, messageId),
    async edit(messageId, content) {
      const text = parseInput(editSchema, content, 'message content');
      return write(pool, async (tx) => {
        const current = await getMessageOn(tx, messageId);
        if (current.visibility === 'deleted' || current.visibility === 'rewound') throw new ValidationError(`Message ${messageId} is ${current.visibility} and cannot be edited.`, { messageId });
        const now = nowMs();
        await tx.query('update messages set content = $1, edited_at = $2 where id = $3', [text, now, messageId]);
        await index(tx, [{ id: messageId, content: text }]);
        await tx.query('update sessions set updated_at = $1 where id = $2', [now, current.sessionId]);
        return getMessageOn(tx, messageId);
      });
    },
    delete: (messageId) =>
      write(pool, async (tx) => {
        const current = await getMessageOn(tx, messageId);
        if (current.visibility !== 'deleted') {
          await tx.query("update messages set visibility = 'deleted', edited_at = $1 where id = $2", [nowMs(), messageId]);
          await tx.query('delete from message_keywords where message_id = $1', [messageId]);
        }
        return getMessageOn(tx, messageId);
      }),
    rewind: (sessionId, toMessageId) =>
      write(pool, async (tx) => {
        await assertSession(tx, sessionId);
        const anchor = await getMessageOn(tx, toMessageId);
        if (anchor.sessionId !== sessionId) throw new ValidationError(`Message ${toMessageId} is not in session ${sessionId}.`, { sessionId, toMessageId });
        return (await tx.query(`update messages set visibility = 'rewound' where session_id = $1 and id > $2 and visibility in ${VISIBLE_SQL}`, [sessionId, toMessageId])).rowCount ?? 0;
      }),
    compact: (sessionId, upTo) =>
      write(pool, async (tx) => {
        await assertSession(tx, sessionId);
        return (await tx.query("update messages set visibility = 'compacted' where session_id = $1 and id <= $2 and visibility = 'live'", [sessionId, upTo])).rowCount ?? 0;
      }),
    async list(sessionId, options = {}) {
      const limit = Math.min(Math.max(Math.floor(options.limit ?? 1000), 1), 10_000);
      if (!(await pool.query('select 1 from sessions where id = $1', [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
      const rows = (await pool.query(`select * from messages where session_id = $1 and id > $2${options.includeHidden ? '' : ` and visibility in ${VISIBLE_SQL}`} order by id limit $3`, [sessionId, options.afterId ?? 0, limit])).rows;
      return rows.map(toMessage);
    },
    window: (sessionId, anchorId, before, after) => windowOn(pool, sessionId, anchorId, before, after),
    windows: (requests) => windowsOn(pool, requests),
    segmentWindow: (segments, anchorId, before, after, options = {}) => segmentWindowOn(pool, segments, anchorId, before, after, options),
    segmentsHeadTail: (segments, head, tail, options = {}) => segmentsHeadTailOn(pool, segments, head, tail, options),
    async existingExternalIds(sessionId, externalIds) {
      const wanted = [...new Set(externalIds)];
      if (wanted.length === 0) return [];
      const rows = (await pool.query('select external_id from messages where session_id = $1 and external_id = any($2::text[])', [sessionId, wanted])).rows;
      const present = new Set(rows.map((r) => r.external_id as string));
      return wanted.filter((id) => present.has(id));
    },
    page: (sessionId, position, limit) => pageOn(pool, sessionId, position, limit),
  };
}
