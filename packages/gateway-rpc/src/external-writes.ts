/**
 * Notices writes made by other processes (`recall import`, `recall mv` from a shell, a second
 * gateway, an agent's MCP host, live sync in another process) so WebSocket clients refresh as they
 * do after the gateway's own writes. The signal is the storage's ChangeFeed (@recall/storage-ports),
 * so the gateway holds no SQL of its own for it:
 * - SQLite (@recall/store's sqlite-feed.ts): `PRAGMA data_version` on the gateway's connection moves
 *   only when ANOTHER connection committed; then an O(1) fingerprint (the `change_counter` row of
 *   migration 0005, the newest message id and session rowid, the semantic consent table) says WHAT
 *   changed, so writes to derived tables (the semantic index's chunks and queue) wake nobody and the
 *   gateway's own writes (which already emit precise events) add no id-less ones;
 * - PostgreSQL (@recall/store-postgres's feed.ts): LISTEN/NOTIFY on a dedicated connection, fed by
 *   triggers at every commit from any gateway on the database (its own writes included: at most one
 *   extra refresh). A dropped connection is re-opened and announced as "everything may have changed".
 * The other process's writes carry no ids we could trust to narrow a refresh (a move to "No project"
 * names no project), so the events carry none: clients treat an id-less change event as "refresh
 * everything" of that kind (docs/rpc.md). Semantic consent switched elsewhere (`recall index
 * enable|disable`) is an id-less `index.changed`. With `coalesceMs`, changes arriving within that
 * window become one event per kind (a busy team database notifies at every commit).
 */
import type { ChangeFeed, StorageChange } from '@recall/storage-ports';
import type { EventHub } from './events.js';

/** How often the SQLite feed polls when `externalWritePollMs` is not given. */
export const DEFAULT_EXTERNAL_WRITE_POLL_MS = 500;
/** Window in which PostgreSQL notifications are folded into one event per kind, when not given. */
export const DEFAULT_CHANGE_COALESCE_MS = 50;

/** A running watcher; stop() ends its subscription. */
export interface ExternalWriteWatcher {
  stop(): Promise<void>;
}

type Kind = StorageChange['kinds'][number];
const EVENT_OF: Record<Kind, 'projects.changed' | 'sessions.changed' | 'messages.changed' | 'index.changed'> = {
  projects: 'projects.changed',
  sessions: 'sessions.changed',
  messages: 'messages.changed',
  index: 'index.changed',
};
const ORDER: readonly Kind[] = ['projects', 'sessions', 'messages', 'index'];

/** Subscribes to `feed` and emits the id-less change events on `events`; resolves once subscribed. */
export async function watchExternalWrites(feed: ChangeFeed, events: EventHub, options: { coalesceMs?: number } = {}): Promise<ExternalWriteWatcher> {
  const coalesceMs = options.coalesceMs ?? 0;
  const pending = new Set<Kind>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const flush = (): void => {
    timer = null;
    if (stopped) return;
    const kinds = ORDER.filter((k) => pending.has(k));
    pending.clear();
    // No `unassigned` either: it names the "No project" group, which would narrow "refresh everything".
    for (const kind of kinds) events.emit({ type: EVENT_OF[kind] });
  };
  const subscription = await feed.subscribe((change) => {
    for (const kind of change.kinds) if (Object.hasOwn(EVENT_OF, kind)) pending.add(kind);
    if (coalesceMs <= 0) flush();
    else if (timer === null) {
      timer = setTimeout(flush, coalesceMs);
      timer.unref();
    }
  });
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await subscription.close();
    },
  };
}
