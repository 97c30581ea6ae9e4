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
    (select count(*) || ':' || coalesce(sum(enabled), 0) || ':' || coalesce(max(updated_at), 0) || ':' || coalesce(group_concat(endpoint), '') from semantic_projects) as "index"
  from change_counter c where c.id = 1`;

type Kind = StorageChange['kinds'][number];
const KINDS: readonly Kind[] = ['projects', 'sessions', 'messages', 'index'];

/** The SQLite ChangeFeed: a poll you can also run by hand, and a way to end every subscription. */
export interface SqliteChangeFeed extends ChangeFeed {
  /** Polls once now (what the timer runs); true when another connection's commit changed a kind and listeners were called. */
  checkNow(): boolean;
  /** Ends every subscription. */
  closeAll(): Promise<void>;
}

/**
 * A ChangeFeed that polls every `intervalMs` (default 250) while anyone is subscribed. A poll that
 * fails (a busy or closed connection, a damaged file) goes to `onError` and never throws from the
 * timer; the next poll tries again.
 */
export function sqliteChangeFeed(db: RecallDatabase, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): SqliteChangeFeed {
  const listeners = new Set<(change: StorageChange) => void>();
  let timer: NodeJS.Timeout | null = null;
  let last = 0;
  let seen: Record<Kind, string> | null = null;
  const fingerprint = (): Record<Kind, string> => {
    const row = db.raw.prepare(FINGERPRINT_SQL).get() as Record<Kind, string | number> | undefined;
    return { projects: String(row?.projects ?? ''), sessions: String(row?.sessions ?? ''), messages: String(row?.messages ?? ''), index: String(row?.index ?? '') };
  };
  const tick = (): boolean => {
    if (!db.raw.open || listeners.size === 0) return false;
    let kinds: Kind[];
    try {
      const version = db.raw.pragma('data_version', { simple: true }) as number;
      // Our own writes move the fingerprint but not data_version; they are folded into the next
      // foreign write's comparison, which costs at most one extra refresh, never a missed one.
      if (version === last) return false;
      const current = fingerprint();
      last = version;
      kinds = seen === null ? [] : KINDS.filter((k) => current[k] !== seen![k]);
      seen = current;
    } catch (error) {
      // a closed or busy connection: the next tick tries again
      options.onError?.(error);
      return false;
    }
    if (kinds.length > 0) for (const l of [...listeners]) l({ kinds });
    return kinds.length > 0;
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    checkNow: tick,
    async subscribe(listener) {
      listeners.add(listener);
      if (!timer) {
        last = db.raw.pragma('data_version', { simple: true }) as number;
        seen = fingerprint();
        timer = setInterval(() => void tick(), options.intervalMs ?? 250);
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
