/**
 * The StorageStats port on SQLite: the counts of what keyword recall serves and a bounded text
 * sample of one project (the statements gateway-rpc's index.status ran itself before it was on
 * the storage ports).
 */
import type { RecallDatabase } from '@recall/schema';
import type { KeywordCounts, TextSampleOptions } from '@recall/storage-ports';
import { prepared, readTransaction } from './transaction.js';

/** Visible (live/compacted) messages of non-hidden sessions, those sessions, and the logical conversations they form — in one snapshot. */
export function keywordCounts(db: RecallDatabase): KeywordCounts {
  return readTransaction(db, () => {
    const messages = prepared(db, "select count(*) from messages m join sessions s on s.id = m.session_id where s.hidden = 0 and m.visibility in ('live','compacted')")
      .pluck()
      .get() as number;
    const sessions = prepared(db, 'select count(*) from sessions where hidden = 0').pluck().get() as number;
    const conversations = prepared(
      db,
      "select count(*) from sessions s where s.hidden = 0 and not (s.lineage in ('compression','delegation') and exists (select 1 from sessions p where p.id = s.parent_session_id and p.hidden = 0))",
    )
      .pluck()
      .get() as number;
    return { messages, sessions, conversations };
  });
}

/** The first `chars` characters of the newest visible user/assistant messages of the project's newest non-hidden sessions (by the sessions_project index). */
export function projectTextSample(db: RecallDatabase, projectId: string, options: TextSampleOptions): string[] {
  return prepared(
    db,
    `select substr(m.content, 1, ?) from messages m
     where m.session_id in (select id from sessions where project_id = ? and hidden = 0 order by started_at desc limit ?)
       and m.visibility in ('live','compacted') and m.role in ('user','assistant')
     order by m.id desc limit ?`,
  )
    .pluck()
    .all(options.chars, projectId, options.sessions, options.messages) as string[];
}
