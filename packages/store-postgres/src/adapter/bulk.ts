/**
 * TransferSource and BulkImport on PostgreSQL (`recall migrate` writes a SQLite profile through
 * BulkImport). Rows keep their ids, timestamps, lineage and visibility; every insert is `ON CONFLICT
 * (id) DO NOTHING`, so a re-run inserts nothing and an interrupted run continues where it stopped
 * (messages of a session are imported in id order, one transaction per batch, and lastMessageId
 * says where to continue). Imported messages get their keyword rows as appended ones do (deleted
 * ones none); finish() moves the message id identity past the imported ids. Semantic consent rows
 * are inserted only for projects without one (`ON CONFLICT (project_id) DO NOTHING`): a consent
 * changed on the team database after a first copy is never overridden by a re-run.
 */
import type { Message, Project } from '@recall/rpc-contract';
import type { BulkImport, SessionRecord, StorageCounts, TransferredConsent, TransferSource } from '@recall/storage-ports';
import type pg from 'pg';
import { documentText, PG_KEYWORD_TOKENIZER_VERSION, tsvectorLiteral } from '../keyword-text.js';
import { toMessage, toSession, write } from './tx.js';
import { postgresProjects } from './projects.js';
import { listSemanticConsents } from './semantic-consent.js';

async function counts(pool: pg.Pool): Promise<StorageCounts> {
  const perProject: StorageCounts['perProject'] = {};
  for (const r of (await pool.query("select coalesce(project_id, '') as p, count(*) as n from sessions group by 1")).rows) perProject[r.p as string] = { sessions: Number(r.n), messages: 0 };
  for (const r of (await pool.query("select coalesce(s.project_id, '') as p, count(*) as n from messages m join sessions s on s.id = m.session_id group by 1")).rows) {
    (perProject[r.p as string] ??= { sessions: 0, messages: 0 }).messages = Number(r.n);
  }
  const one = async (table: string) => Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n);
  return { projects: await one('projects'), sessions: await one('sessions'), messages: await one('messages'), perProject };
}

/**
 * A batch's messages with their ids. The sessions of the batch are locked FOR SHARE first (in id
 * order), so a move made meanwhile waits for this batch and then rewrites its keyword rows (trigger,
 * migration 0004): the one-row `count(*)` over the locking CTE makes it run to the end before any
 * row is inserted, and keeps every message (one of an unknown session fails the foreign key, the
 * whole batch with it). Returns the ids that were new.
 */
const IMPORT_MESSAGES_SQL = `with s as (select id from sessions where id = any($12::text[]) order by id for share)
insert into messages (id, session_id, role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility, edited_at)
overriding system value
select v.* from (select count(*) from s) as locked
  cross join unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::bigint[])
             as v(id, session_id, role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility, edited_at)
on conflict do nothing returning id`;

/** The new messages' keyword rows, the project copied from their (locked) sessions. */
const IMPORT_KEYWORDS_SQL = `insert into message_keywords (message_id, document, tokenizer_version, session_id, project_id, role, visibility)
select v.id, v.document, $1, v.session_id, s.project_id, v.role, v.visibility
  from unnest($2::bigint[], $3::tsvector[], $4::text[], $5::text[], $6::text[]) as v(id, document, session_id, role, visibility)
  join sessions s on s.id = v.session_id
on conflict (message_id) do nothing`;

/** Importing transferred rows into a PostgreSQL team database. */
export function postgresBulkImport(pool: pg.Pool): BulkImport {
  return {
    async importProjects(projects: readonly Project[]) {
      if (projects.length === 0) return 0;
      return write(pool, async (tx) => {
        const r = await tx.query(
          `insert into projects (id, name, slug, description, color, icon, archived, created_at, updated_at)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::bigint[], $9::bigint[])
           on conflict (id) do nothing`,
          [projects.map((p) => p.id), projects.map((p) => p.name), projects.map((p) => p.slug), projects.map((p) => p.description), projects.map((p) => p.color), projects.map((p) => p.icon), projects.map((p) => p.archived), projects.map((p) => p.createdAt), projects.map((p) => p.updatedAt)],
        );
        const folders = projects.flatMap((p) => p.folders.map((f) => ({ projectId: p.id, path: f.path, isPrimary: f.isPrimary })));
        if (folders.length > 0) {
          await tx.query(
            `insert into project_folders (project_id, path, is_primary) select * from unnest($1::text[], $2::text[], $3::boolean[]) on conflict do nothing`,
            [folders.map((f) => f.projectId), folders.map((f) => f.path), folders.map((f) => f.isPrimary)],
          );
        }
        return r.rowCount ?? 0;
      });
    },
    async importSessions(sessions: readonly SessionRecord[]) {
      if (sessions.length === 0) return 0;
      const col = <K extends keyof SessionRecord>(k: K) => sessions.map((s) => s[k]);
      const r = await pool.query(
        `insert into sessions (id, project_id, parent_session_id, lineage, source, title, cwd, git_repo_root, git_branch, model, started_at, ended_at, end_reason, archived, hidden, created_at, updated_at)
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::text[], $14::boolean[], $15::boolean[], $16::bigint[], $17::bigint[])
         on conflict (id) do nothing`,
        [col('id'), col('projectId'), col('parentSessionId'), col('lineage'), col('source'), col('title'), col('cwd'), col('gitRepoRoot'), col('gitBranch'), col('model'), col('startedAt'), col('endedAt'), col('endReason'), col('archived'), col('hidden'), col('createdAt'), col('updatedAt')],
      );
      return r.rowCount ?? 0;
    },
    async importMessages(messages: readonly Message[]) {
      if (messages.length === 0) return 0;
      return write(pool, async (tx) => {
        const col = <K extends keyof Message>(k: K) => messages.map((m) => m[k]);
        // The INSERT is sent first; the documents are built while PostgreSQL writes the rows.
        const pending = tx.query(IMPORT_MESSAGES_SQL, [
          col('id'),
          col('sessionId'),
          col('role'),
          col('content'),
          col('toolName'),
          col('toolCalls'),
          col('toolCallId'),
          col('externalId'),
          col('createdAt'),
          col('visibility'),
          col('editedAt'),
          [...new Set(messages.map((m) => m.sessionId))],
        ]);
        pending.catch(() => {}); // awaited below
        const documents = new Map<number, string>();
        for (const m of messages) if (m.visibility !== 'deleted') documents.set(m.id, tsvectorLiteral(documentText(m.content)));
        const all = (await pending).rows.map((r) => Number(r.id));
        const byId = new Map(messages.map((m) => [m.id, m]));
        const inserted = all.map((id) => byId.get(id)!).filter((m) => m.visibility !== 'deleted');
        if (inserted.length > 0) {
          await tx.query(IMPORT_KEYWORDS_SQL, [
            PG_KEYWORD_TOKENIZER_VERSION,
            inserted.map((m) => m.id),
            inserted.map((m) => documents.get(m.id)!),
            inserted.map((m) => m.sessionId),
            inserted.map((m) => m.role),
            inserted.map((m) => m.visibility),
          ]);
        }
        return all.length;
      });
    },
    async importConsents(consents: readonly TransferredConsent[]) {
      if (consents.length === 0) return 0;
      const col = <K extends keyof TransferredConsent>(k: K) => consents.map((c) => c[k]);
      const r = await pool.query(
        `insert into semantic_projects (project_id, enabled, endpoint, rerank_endpoint, enabled_at, updated_at)
         select * from unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
         on conflict (project_id) do nothing`,
        [col('projectId'), col('enabled'), col('endpoint'), col('rerankEndpoint'), col('enabledAt'), col('updatedAt')],
      );
      return r.rowCount ?? 0;
    },
    async lastMessageId(sessionId) {
      return Number((await pool.query('select coalesce(max(id), 0) as id from messages where session_id = $1', [sessionId])).rows[0].id);
    },
    async finish() {
      await pool.query("select setval(pg_get_serial_sequence('messages', 'id'), greatest((select coalesce(max(id), 0) from messages), 1))");
    },
    counts: () => counts(pool),
  };
}

/** Reading a PostgreSQL team database's rows with their ids. */
export function postgresTransferSource(pool: pg.Pool): TransferSource {
  const projects = postgresProjects(pool);
  return {
    projects: () => projects.list({ includeArchived: true }),
    async sessions(afterId, limit) {
      return (await pool.query('select * from sessions where id > $1 order by id limit $2', [afterId, Math.max(1, Math.floor(limit))])).rows.map((r) => {
        const { messageCount: _c, lastMessageAt: _l, ...record } = toSession(r);
        return record;
      });
    },
    async messages(sessionId, afterId, limit) {
      return (await pool.query('select * from messages where session_id = $1 and id > $2 order by id limit $3', [sessionId, afterId, Math.max(1, Math.floor(limit))])).rows.map(toMessage);
    },
    consents: () => listSemanticConsents(pool),
    counts: () => counts(pool),
  };
}
