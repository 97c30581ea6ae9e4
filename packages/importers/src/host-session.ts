/**
 * Which Recall session a host means when it passes its own transcript id to `recall mcp --session`.
 * Importers keep the source's session id as the Recall id, but split a transcript that was compacted
 * in place (Claude Code, Codex) into compression continuations `<id>:c1`, `<id>:c2`, …; the host's
 * live context is the newest of them, so that is the current session (its own live messages are
 * then the ones excluded, and everything before the compaction stays recallable). Sessions of other
 * sources are taken as given. Read through the storage ports (a Storage), or, synchronously, through
 * the SQLite store of an open profile database.
 */
import type { Session } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import type { ConversationNode, Storage } from '@recall/storage-ports';
import { getSession, logicalConversation } from '@recall/store';
import { IMPORTED_SOURCES } from './records.js';

/** The compression child of `parentId` among a conversation's sessions (the store allows at most one). */
const continuationOf = (members: readonly ConversationNode[], parentId: string): string | undefined =>
  members.find((m) => m.parentSessionId === parentId && m.lineage === 'compression')?.id;

const imported = (session: Session): boolean => (IMPORTED_SOURCES as readonly string[]).includes(session.source);

/** The newest same-source compression continuation of an imported session (the session itself otherwise). Throws session_not_found. */
export function hostSession(db: RecallDatabase, id: string): Session;
export function hostSession(storage: Storage, id: string): Promise<Session>;
export function hostSession(target: RecallDatabase | Storage, id: string): Session | Promise<Session> {
  if ('sessions' in target && 'kind' in target) return hostSessionOn(target, id);
  const db = target as RecallDatabase;
  let session = getSession(db, id);
  if (!imported(session)) return session;
  const members = logicalConversation(db, id);
  for (let depth = 0; depth < 10_000; depth++) {
    const child = continuationOf(members, session.id);
    if (child === undefined) break;
    const next = getSession(db, child);
    if (next.source !== session.source) break;
    session = next;
  }
  return session;
}

async function hostSessionOn(storage: Storage, id: string): Promise<Session> {
  let session = await storage.sessions.get(id);
  if (!imported(session)) return session;
  const members = await storage.sessions.conversation(id);
  for (let depth = 0; depth < 10_000; depth++) {
    const child = continuationOf(members, session.id);
    if (child === undefined) break;
    const next = await storage.sessions.get(child);
    if (next.source !== session.source) break;
    session = next;
  }
  return session;
}
