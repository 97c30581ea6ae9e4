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

/** A message just inserted: its keyword document and scope copies, waiting for the index statement. */
interface FreshRow {
  id: number;
  document: string;
  role: string;
  visibility: string;
}

/**
 * The append's INSERT: takes the session FOR SHARE (no move can commit until this transaction
 * ends, so the keyword rows' project copy read later stays true) and inserts the rows in input
 * order (ids are assigned in `ord` order). An external id already stored is filtered out before an
 * id is drawn, so repeats leave no gap in the ids (as on SQLite); ON CONFLICT still covers a
 * concurrent writer. Returns only what the caller cannot know (id, external id): the messages are
 * built from the validated input, which is what the row holds. No row comes back when the session
 * does not exist.
 */
const INSERT_MESSAGES_SQL = `with s as (select id from sessions where id = $1 for share)
insert into messages (session_id, role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility)
select s.id, v.role, v.content, v.tool_name, v.tool_calls, v.tool_call_id, v.external_id, v.created_at, v.visibility
  from s cross join unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])
       with ordinality as v(role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility, ord)
 where v.external_id is null or not exists (select 1 from messages m where m.session_id = s.id and m.external_id = v.external_id)
 order by v.ord
on conflict (session_id, external_id) do nothing returning id, external_id`;

/**
 * The append's second and last statement: the fresh messages' keyword rows, their scope copies
 * taken from the session row (locked FOR SHARE by INSERT_MESSAGES_SQL, so its project cannot have
 * changed), and the session's `updated_at`, in one round trip. A further write of the same append
 * (another derived row) fits here as one more data-modifying CTE over the same arrays.
 */
const INDEX_AND_TOUCH_SQL = `with k as (
  insert into message_keywords (message_id, document, tokenizer_version, session_id, project_id, role, visibility)
  select v.id, v.document, $3, s.id, s.project_id, v.role, v.visibility
    from sessions s cross join unnest($4::bigint[], $5::tsvector[], $6::text[], $7::text[]) as v(id, document, role, visibility)
   where s.id = $1
  on conflict (message_id) do update set document = excluded.document, tokenizer_version = excluded.tokenizer_version
)
update sessions set updated_at = greatest(updated_at, $2) where id = $1`;

/** Rows per multi-row INSERT (bounded so one statement's parameters stay small). */
const INSERT_CHUNK = 5000;

/**
 * Inserts validated messages into an existing session inside the caller's transaction. Statements:
 * one INSERT per 5,000 messages (INSERT_MESSAGES_SQL: the session lock, `unnest(…) WITH ORDINALITY
 * ORDER BY ord`, `ON CONFLICT (session_id, external_id) DO NOTHING`), then one statement for all
 * keyword rows and the session's `updated_at` (INDEX_AND_TOUCH_SQL) — two round trips for a
 * batch of new messages. A repeated external id (stored earlier or earlier in the same batch) gives
 * the stored row (one more read each, the rare path). SessionNotFoundError when the session does not exist.
 */
export async function insertParsedMessages(tx: Tx, sessionId: string, inputs: z.output<typeof appendSchema>): Promise<AppendOutcome> {
  const out: Message[] = [];
  const fresh: FreshRow[] = [];
  let skipped = 0;
  let last = 0;
  const now = nowMs();
  if (inputs.length === 0) {
    if (!(await tx.query('select 1 from sessions where id = $1 for share', [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
    return { messages: out, inserted: 0, skipped: 0 };
  }
  for (let from = 0; from < inputs.length; from += INSERT_CHUNK) {
    const batch = inputs.slice(from, from + INSERT_CHUNK);
    const created = batch.map((m) => m.createdAt ?? now);
    // Sent: every message but a repeat of an external id earlier in the batch (it gives the stored row, below).
    const seen = new Set<string>();
    const sent: number[] = [];
    batch.forEach((m, i) => {
      if (m.externalId == null) sent.push(i);
      else if (!seen.has(m.externalId)) {
        seen.add(m.externalId);
        sent.push(i);
      }
    });
    const column = <T>(f: (m: (typeof batch)[number], i: number) => T): T[] => sent.map((i) => f(batch[i]!, i));
    // The INSERT is sent first; the keyword documents (the tokenizer, CPU-bound) are computed while
    // PostgreSQL writes the rows, and are simply not used for rows that already existed.
    const pending = tx.query(INSERT_MESSAGES_SQL, [
      sessionId,
      column((m) => m.role),
      column((m) => m.content),
      column((m) => m.toolName ?? null),
      column((m) => m.toolCalls ?? null),
      column((m) => m.toolCallId ?? null),
      column((m) => m.externalId ?? null),
      column((_m, i) => created[i]!),
      column((m) => m.visibility ?? 'live'),
    ]);
    pending.catch(() => {}); // awaited below; a failure surfaces there, after the documents are built
    const documents: string[] = [];
    for (const i of sent) documents[i] = tsvectorLiteral(documentText(batch[i]!.content));
    const inserted = (await pending).rows.map((r) => ({ id: Number(r.id), externalId: r.external_id as string | null })).sort((a, b) => a.id - b.id);
    if (inserted.length === 0 && !(await tx.query('select 1 from sessions where id = $1', [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
    // Returned ids, in id (= input) order: keyed by external id, the rest queued.
    const byExternal = new Map<string, number>();
    const anonymous: number[] = [];
    for (const row of inserted) {
      if (row.externalId === null) anonymous.push(row.id);
      else byExternal.set(row.externalId, row.id);
    }
    let nextAnonymous = 0;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      const id = m.externalId == null ? anonymous[nextAnonymous++] : byExternal.get(m.externalId);
      if (id !== undefined) {
        if (m.externalId != null) byExternal.delete(m.externalId);
        const visibility = m.visibility ?? 'live';
        fresh.push({ id, document: documents[i]!, role: m.role, visibility });
        last = Math.max(last, created[i]!);
        out.push({ id, sessionId, role: m.role, content: m.content, toolName: m.toolName ?? null, toolCalls: m.toolCalls ?? null, toolCallId: m.toolCallId ?? null, externalId: m.externalId ?? null, createdAt: created[i]!, visibility, editedAt: null });
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
    await tx.query(INDEX_AND_TOUCH_SQL, [sessionId, Math.max(last, now), PG_KEYWORD_TOKENIZER_VERSION, fresh.map((r) => r.id), fresh.map((r) => r.document), fresh.map((r) => r.role), fresh.map((r) => r.visibility)]);
  }
  return { messages: out, inserted: fresh.length, skipped };
}

async function assertSession(tx: Tx, sessionId: string): Promise<void> {
  if (!(await tx.query('select 1 from sessions where id = $1', [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
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
      // insertParsedMessages takes the session FOR SHARE in its INSERT and reports a missing session.
      return write(pool, (tx) => insertParsedMessages(tx, sessionId, data));
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
