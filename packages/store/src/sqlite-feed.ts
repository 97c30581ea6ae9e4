/**
 * The SQLite change feed: another connection's commits move `PRAGMA data_version` on ours; only then
 * the O(1) fingerprint (the change_counter row, the newest session/message ids, the consent table)
 * says which kinds changed — the same signal gateway-rpc's external-writes watcher uses. Writes of
 * this connection are not announced (their caller knows them).
 */
import type { RecallDatabase } from '@recall/schema';
import type { ChangeFeed, StorageChange } from '@recall/storage-ports';

const FINGERPRINT_SQL = `select c.projects as projects,
    c.sessions || ':' || coalesce((select max(rowid) from sessions), 0) || ':' || coalesce((select max(id) from messages), 0) as sessions,
    c.messages || ':' || coalesce((select max(id) from messages), 0) as messages,
    (select count(*) || ':' || coalesce(sum(enabled), 0) || ':' || coalesce(max(updated_at), 0) from semantic_projects) as "index"
  from change_counter c where c.id = 1`;

type Kind = StorageChange['kinds'][number];
const KINDS: readonly Kind[] = ['projects', 'sessions', 'messages', 'index'];

/** A ChangeFeed that polls every `intervalMs` (default 250) while anyone is subscribed; closeAll() ends every subscription. */
export function sqliteChangeFeed(db: RecallDatabase, options: { intervalMs?: number } = {}): ChangeFeed & { closeAll(): Promise<void> } {
  const listeners = new Set<(change: StorageChange) => void>();
  let timer: NodeJS.Timeout | null = null;
  let last = 0;
  let seen: Record<Kind, string> | null = null;
  const fingerprint = (): Record<Kind, string> => {
    const row = db.raw.prepare(FINGERPRINT_SQL).get() as Record<Kind, string | number> | undefined;
    return { projects: String(row?.projects ?? ''), sessions: String(row?.sessions ?? ''), messages: String(row?.messages ?? ''), index: String(row?.index ?? '') };
  };
  const tick = () => {
    if (!db.raw.open) return;
    try {
      const version = db.raw.pragma('data_version', { simple: true }) as number;
      if (version === last) return;
      last = version;
      const current = fingerprint();
      const kinds = seen === null ? [] : KINDS.filter((k) => current[k] !== seen![k]);
      seen = current;
      if (kinds.length > 0) for (const l of listeners) l({ kinds });
    } catch {
      // a closed or busy connection: the next tick tries again
    }
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    async subscribe(listener) {
      listeners.add(listener);
      if (!timer) {
        last = db.raw.pragma('data_version', { simple: true }) as number;
        seen = fingerprint();
        timer = setInterval(tick, options.intervalMs ?? 250);
        timer.unref();
      }
      return {
        async close() {
          listeners.delete(listener);
          if (listeners.size === 0) stop();
        },
      };
    },
    async closeAll() {
      listeners.clear();
      stop();
    },
  };
}
