/**
 * PurgeStore on PostgreSQL: the rules of @recall/store's purge.ts (the same logical conversation,
 * the same order of session ids, the same typed errors), each purge ONE write transaction. The
 * rows' derived data goes with them by the foreign keys' ON DELETE CASCADE — messages with their
 * session, message_keywords and semantic_chunks with their message (or session) — so the keyword
 * index, the chunks and their row-level-security copies of project_id can never outlive the rows
 * they were built from. The conversation is locked like a move (lockConversation) and its session
 * rows FOR UPDATE, so a concurrent move, continuation or append waits, then finds them gone.
 * `scrubbed` is false: PostgreSQL frees the deleted rows' space at the next (auto)vacuum.
 */
import { ProjectHasSessionsError, ProjectNotFoundError, idSchema, parseInput } from '@recall/store/portable';
import type { PurgeOutcome, PurgeStore } from '@recall/storage-ports';
import type pg from 'pg';
import { conversationMembers, conversationRoot } from './conversations.js';
import { lockConversation, write, type Tx } from './tx.js';

/** The conversation of `sessionId`, locked; its members root first (throws session_not_found). */
async function lockedConversation(tx: Tx, sessionId: string): Promise<string[]> {
  await lockConversation(tx, await conversationRoot(tx, sessionId));
  // Read again under the lock: a move or continuation that committed meanwhile is included.
  const ids = (await conversationMembers(tx, sessionId)).map((m) => m.id);
  await tx.query('select id from sessions where id = any($1::text[]) order by id for update', [ids]);
  return ids;
}

/** The distinct projects of `ids`, in the order of `ids`. */
async function projectsOf(tx: Tx, ids: readonly string[]): Promise<string[]> {
  const rows = (await tx.query('select id, project_id from sessions where id = any($1::text[])', [ids])).rows as Array<{ id: string; project_id: string | null }>;
  const byId = new Map(rows.map((r) => [r.id, r.project_id]));
  const out: string[] = [];
  for (const id of ids) {
    const p = byId.get(id) ?? null;
    if (p !== null && !out.includes(p)) out.push(p);
  }
  return out;
}

/** Deletes the sessions (their messages, keyword rows and chunks by cascade); returns how many messages went. */
async function removeSessions(tx: Tx, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const messages = Number((await tx.query('select count(*) as n from messages where session_id = any($1::text[])', [ids])).rows[0].n);
  await tx.query('delete from sessions where id = any($1::text[])', [ids]);
  return messages;
}

/** The PurgeStore of a team database. */
export function postgresPurges(pool: pg.Pool): PurgeStore {
  return {
    async deleteConversation(sessionId) {
      parseInput(idSchema, sessionId, 'session id');
      return write(pool, async (tx): Promise<PurgeOutcome> => {
        const sessionIds = await lockedConversation(tx, sessionId);
        const projectIds = await projectsOf(tx, sessionIds);
        const messages = await removeSessions(tx, sessionIds);
        return { sessionIds, messages, projectIds, scrubbed: false };
      });
    },

    async deleteProject(projectId, options = {}) {
      parseInput(idSchema, projectId, 'project id');
      return write(pool, async (tx): Promise<PurgeOutcome> => {
        // FOR UPDATE: a session being created in (or moved into) this project waits on its FK
        // check's KEY SHARE lock, so the sessions read below are all there are.
        if ((await tx.query('select id from projects where id = $1 for update', [projectId])).rowCount === 0) throw new ProjectNotFoundError(projectId);
        const owned = (await tx.query('select id from sessions where project_id = $1 order by started_at, id collate "C"', [projectId])).rows.map((r) => r.id as string);
        if (owned.length > 0 && options.withConversations !== true) throw new ProjectHasSessionsError(projectId, owned.length);
        const sessionIds: string[] = [];
        const seen = new Set<string>();
        for (const id of owned) {
          if (seen.has(id)) continue;
          for (const member of await lockedConversation(tx, id)) {
            if (seen.has(member)) continue;
            seen.add(member);
            sessionIds.push(member);
          }
        }
        const messages = await removeSessions(tx, sessionIds);
        // Folders and semantic consent go with the project (ON DELETE CASCADE).
        await tx.query('delete from projects where id = $1', [projectId]);
        return { sessionIds, messages, projectIds: [projectId], scrubbed: false };
      });
    },

    async purgeHidden(sessionId) {
      parseInput(idSchema, sessionId, 'session id');
      return write(pool, async (tx): Promise<PurgeOutcome> => {
        const sessionIds = await lockedConversation(tx, sessionId);
        const removed = await tx.query("delete from messages where session_id = any($1::text[]) and visibility in ('rewound', 'deleted')", [sessionIds]);
        const projectIds = await projectsOf(tx, sessionIds);
        return { sessionIds, messages: removed.rowCount ?? 0, projectIds, scrubbed: false };
      });
    },
  };
}
