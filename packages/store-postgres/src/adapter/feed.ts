/**
 * The change feed on PostgreSQL: LISTEN recall_changes on a dedicated connection (a pg.Client of
 * its own, never a pooled one — a transaction pooler would drop the LISTEN), fed by the triggers
 * of migration 0002 at every commit, from any process on the database. A dropped connection is
 * re-opened (bounded backoff); changes committed while it was down are announced as one id-less
 * "everything may have changed" event when it is back, so no client misses a move.
 */
import type { ChangeFeed, StorageChange } from '@recall/storage-ports';
import pg from 'pg';

/** The notification channel of migration 0002's triggers. */
export const CHANGE_CHANNEL = 'recall_changes';
const EVERYTHING: StorageChange = { kinds: ['projects', 'sessions', 'messages', 'index'] };

function parse(payload: string | undefined): StorageChange | null {
  try {
    const raw = JSON.parse(payload ?? '') as { kinds?: unknown; projectIds?: unknown; sessionIds?: unknown };
    const kinds = Array.isArray(raw.kinds) ? raw.kinds.filter((k): k is StorageChange['kinds'][number] => ['projects', 'sessions', 'messages', 'index'].includes(k as string)) : [];
    if (kinds.length === 0) return null;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    const projectIds = strings(raw.projectIds);
    const sessionIds = strings(raw.sessionIds);
    return { kinds, ...(projectIds ? { projectIds } : {}), ...(sessionIds ? { sessionIds } : {}) };
  } catch {
    return null;
  }
}

/** A ChangeFeed over LISTEN/NOTIFY on `url` (one connection per subscription). */
export function postgresChangeFeed(url: string): ChangeFeed & { closeAll(): Promise<void> } {
  const open = new Set<() => Promise<void>>();
  return {
    async subscribe(listener) {
      let client: pg.Client | null = null;
      let closed = false;
      let retry: NodeJS.Timeout | null = null;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: url });
        c.on('notification', (msg) => {
          const change = parse(msg.payload);
          if (change) listener(change);
        });
        const lost = () => {
          if (closed || client !== c) return;
          client = null;
          c.end().catch(() => {});
          schedule(250);
        };
        c.on('error', lost);
        c.on('end', lost);
        await c.connect();
        await c.query(`listen ${CHANGE_CHANNEL}`);
        client = c;
      };
      const schedule = (delay: number) => {
        retry = setTimeout(() => {
          retry = null;
          if (closed) return;
          connect()
            .then(() => listener(EVERYTHING))
            .catch(() => schedule(Math.min(delay * 2, 5_000)));
        }, delay);
        retry.unref();
      };
      await connect();
      const close = async () => {
        closed = true;
        if (retry) clearTimeout(retry);
        open.delete(close);
        const c = client;
        client = null;
        await c?.end().catch(() => {});
      };
      open.add(close);
      return { close };
    },
    async closeAll() {
      await Promise.all([...open].map((close) => close()));
    },
  };
}
