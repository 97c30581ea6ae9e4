/**
 * The logical conversation: a root session plus its compression continuations and delegation
 * children (recursively). Only those two edge kinds are followed — branch and reset edges start a
 * new conversation — so we never infer a conversation by walking every parent edge. Moves use it
 * to update a whole conversation at once; the search tool uses it to scope a project-less session
 * to its own history.
 */
import { CONVERSATION_EDGES, type RecallDatabase } from '@recall/schema';
import { SessionNotFoundError } from './errors.js';
import { prepared } from './transaction.js';

const EDGE_LIST = CONVERSATION_EDGES.map((k) => `'${k}'`).join(',');
/** Lineage chains deeper than this are corrupt data (or a cycle), not conversations. */
const MAX_DEPTH = 10_000;

/**
 * The session where `sessionId`'s logical conversation starts (following compression and delegation
 * edges up; the session itself when it is a root, branch or reset). Throws SessionNotFoundError.
 */
export function conversationRootId(db: RecallDatabase, sessionId: string): string {
  const parentOf = prepared(db, 'select parent_session_id as parent, lineage from sessions where id = ?');
  let current = sessionId;
  let row = parentOf.get(current) as { parent: string | null; lineage: string } | undefined;
  if (!row) throw new SessionNotFoundError(sessionId);
  const seen = new Set<string>([current]);
  while (row && row.parent !== null && (CONVERSATION_EDGES as readonly string[]).includes(row.lineage) && seen.size < MAX_DEPTH) {
    const parentRow = parentOf.get(row.parent) as { parent: string | null; lineage: string } | undefined;
    if (!parentRow || seen.has(row.parent)) break;
    current = row.parent;
    seen.add(current);
    row = parentRow;
  }
  return current;
}

/** One session of a logical conversation: its id, lineage, parent and depth below the root (root = 0). */
export interface ConversationMember {
  id: string;
  lineage: string;
  parentSessionId: string | null;
  depth: number;
}

/**
 * Every session of the logical conversation `sessionId` belongs to (root, compression continuations
 * and delegation children, recursively), root first then by depth. Throws SessionNotFoundError.
 */
export function logicalConversation(db: RecallDatabase, sessionId: string): ConversationMember[] {
  const root = conversationRootId(db, sessionId);
  const rows = prepared(
    db,
    `with recursive conv(id, lineage, parent, depth) as (
       select id, lineage, parent_session_id, 0 from sessions where id = ?
       union
       select s.id, s.lineage, s.parent_session_id, conv.depth + 1 from sessions s join conv on s.parent_session_id = conv.id
       where s.lineage in (${EDGE_LIST}) and conv.depth < ${MAX_DEPTH}
     )
     select id, lineage, parent, depth from conv order by depth, id`,
  ).all(root) as { id: string; lineage: string; parent: string | null; depth: number }[];
  return rows.map((r) => ({ id: r.id, lineage: r.lineage, parentSessionId: r.parent, depth: r.depth }));
}

/** The ids of logicalConversation(): the sessions a move updates together. Throws SessionNotFoundError. */
export function logicalConversationIds(db: RecallDatabase, sessionId: string): string[] {
  return logicalConversation(db, sessionId).map((m) => m.id);
}

/**
 * The sessions a project-less session may recall from: its own conversation's compression chain (root
 * and continuations), without delegation children (hidden) and without branches/resets. Throws
 * SessionNotFoundError.
 */
export function ownHistorySessionIds(db: RecallDatabase, sessionId: string): string[] {
  const members = logicalConversation(db, sessionId);
  const byId = new Map(members.map((m) => [m.id, m]));
  return members
    .filter((m) => {
      // keep only members reached purely through compression edges
      let cur: ConversationMember | undefined = m;
      while (cur && cur.depth > 0) {
        if (cur.lineage !== 'compression') return false;
        cur = cur.parentSessionId ? byId.get(cur.parentSessionId) : undefined;
      }
      return true;
    })
    .map((m) => m.id);
}

/** The first segment of `sessionId`'s compression chain (following compression edges only). */
function compressionChainStart(db: RecallDatabase, sessionId: string): string {
  const parentOf = prepared(db, 'select parent_session_id as parent, lineage from sessions where id = ?');
  let current = sessionId;
  const seen = new Set<string>([current]);
  for (let row = parentOf.get(current) as { parent: string | null; lineage: string } | undefined; row && row.lineage === 'compression' && row.parent !== null && !seen.has(row.parent) && seen.size < MAX_DEPTH; row = parentOf.get(current) as typeof row) {
    current = row.parent;
    seen.add(current);
  }
  return current;
}

/**
 * The compression segments `sessionId` is one of, in conversation order (the first segment, then each
 * continuation). For a conversation's main line the first segment is its root; a delegation child that
 * was itself compressed has its own chain. Branches/resets and delegation children are not segments.
 * Imported data with forks is ordered by depth, then start time. Empty for an unknown session id.
 */
export function conversationSegments(db: RecallDatabase, sessionId: string): string[] {
  const root = compressionChainStart(db, sessionId);
  return (
    prepared(
      db,
      `with recursive chain(id, depth, started) as (
         select id, 0, started_at from sessions where id = ?
         union
         select s.id, chain.depth + 1, s.started_at from sessions s join chain on s.parent_session_id = chain.id
         where s.lineage = 'compression' and chain.depth < ${MAX_DEPTH}
       )
       select id from chain order by depth, started, id`,
    )
      .pluck()
      .all(root) as string[]
  );
}
