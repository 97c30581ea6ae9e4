/**
 * Which Recall session a host means when it passes its own transcript id to `recall mcp --session`.
 * Importers keep the source's session id as the Recall id, but split a transcript that was compacted
 * in place (Claude Code, Codex) into compression continuations `<id>:c1`, `<id>:c2`, …; the host's
 * live context is the newest of them, so that is the current session (its own live messages are
 * then the ones excluded, and everything before the compaction stays recallable). Sessions of other
 * sources are taken as given.
 */
import type { Session } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { getSession } from '@recall/store';
import { IMPORTED_SOURCES } from './records.js';

export function hostSession(db: RecallDatabase, id: string): Session {
  let session = getSession(db, id);
  if (!(IMPORTED_SOURCES as readonly string[]).includes(session.source)) return session;
  const next = db.raw.prepare(
    "select id from sessions where parent_session_id = ? and lineage = 'compression' and source = ? order by started_at desc, id desc limit 1",
  );
  for (let depth = 0; depth < 10_000; depth++) {
    const child = next.pluck().get(session.id, session.source) as string | undefined;
    if (child === undefined) break;
    session = getSession(db, child);
  }
  return session;
}
