/** The StorageStats port on PostgreSQL: the same counts and sample as the SQLite adapter's stats.ts. */
import type { KeywordCounts, StorageStats } from '@recall/storage-ports';
import type pg from 'pg';

/** Counts for status screens and a bounded text sample of one project. */
export function postgresStats(pool: pg.Pool): StorageStats {
  return {
    async keywordCounts(): Promise<KeywordCounts> {
      // One statement: one snapshot.
      const row = (
        await pool.query(
          `select
             (select count(*) from messages m join sessions s on s.id = m.session_id where not s.hidden and m.visibility in ('live','compacted')) as messages,
             (select count(*) from sessions where not hidden) as sessions,
             (select count(*) from sessions s where not s.hidden and not (s.lineage in ('compression','delegation')
                and exists (select 1 from sessions p where p.id = s.parent_session_id and not p.hidden))) as conversations`,
        )
      ).rows[0] as Record<string, unknown>;
      return { messages: Number(row.messages), sessions: Number(row.sessions), conversations: Number(row.conversations) };
    },
    async textSample(projectId, options) {
      const rows = (
        await pool.query(
          `select substr(m.content, 1, $1) as text from messages m
           where m.session_id in (select id from sessions where project_id = $2 and not hidden order by started_at desc limit $3)
             and m.visibility in ('live','compacted') and m.role in ('user','assistant')
           order by m.id desc limit $4`,
          [options.chars, projectId, options.sessions, options.messages],
        )
      ).rows as { text: string }[];
      return rows.map((r) => r.text);
    },
  };
}
