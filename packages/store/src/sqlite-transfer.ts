/**
 * TransferSource of the SQLite adapter (`recall migrate` reads a profile through it): every
 * project, session row and message with its stored id, timestamps, lineage and visibility, in id
 * order, every project's semantic consent row (semantic-consent.ts, the one reader of those rows),
 * and the counts a copy is verified against.
 */
import type { RecallDatabase } from '@recall/schema';
import type { StorageCounts, TransferredConsent, TransferSource } from '@recall/storage-ports';
import { getMessages } from './messages.js';
import { listProjects } from './projects.js';
import { toSessionHeader, type SessionRow } from './rows.js';
import { listSemanticConsents } from './semantic-consent.js';

/** Rows of a profile database for a transfer. */
export function sqliteTransferSource(db: RecallDatabase): TransferSource {
  return {
    projects: async () => listProjects(db, { includeArchived: true }),
    async sessions(afterId, limit) {
      const rows = db.raw.prepare('select * from sessions where id > ? order by id limit ?').all(afterId, Math.max(1, Math.floor(limit))) as SessionRow[];
      return rows.map(toSessionHeader);
    },
    messages: async (sessionId, afterId, limit) => getMessages(db, sessionId, { afterId, limit, includeHidden: true }),
    consents: async (): Promise<TransferredConsent[]> => listSemanticConsents(db),
    async counts(): Promise<StorageCounts> {
      const perProject: StorageCounts['perProject'] = {};
      const sessions = db.raw.prepare("select coalesce(project_id, '') as p, count(*) as n from sessions group by 1").all() as Array<{ p: string; n: number }>;
      const messages = db.raw
        .prepare("select coalesce(s.project_id, '') as p, count(*) as n from messages m join sessions s on s.id = m.session_id group by 1")
        .all() as Array<{ p: string; n: number }>;
      for (const r of sessions) perProject[r.p] = { sessions: r.n, messages: 0 };
      for (const r of messages) (perProject[r.p] ??= { sessions: 0, messages: 0 }).messages = r.n;
      const one = (sql: string) => (db.raw.prepare(sql).get() as { n: number }).n;
      return { projects: one('select count(*) as n from projects'), sessions: one('select count(*) as n from sessions'), messages: one('select count(*) as n from messages'), perProject };
    },
  };
}
