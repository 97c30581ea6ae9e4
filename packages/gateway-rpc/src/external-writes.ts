/**
 * Notices writes made by other processes (`recall import`, `recall mv` from a shell, a second
 * gateway, an agent's MCP host, live sync in another process) so WebSocket clients refresh as they
 * do after the gateway's own writes. SQLite's `PRAGMA data_version` changes on a connection
 * whenever ANOTHER connection has committed to the file since it was last read (never for the
 * connection's own writes, which already emit precise events), so polling it on the gateway's main
 * connection is a cheap, exact "someone else wrote" signal. Only then, a fingerprint per table
 * family says WHAT changed, so writes that touch none of them (e.g. a semantic index filling its
 * own tables) wake nobody. The fingerprint is O(1) on any profile size: the `change_counter` row
 * (migration 0005_change_counter: triggers count every update and delete a client can see — a
 * rewind or delete that only flips `messages.visibility`, a hide, a rename, a move that only
 * changes `project_id`, folder edits) plus the newest message id and session rowid, which see
 * inserts (an insert trigger would slow bulk imports; see the migration). The other process's
 * writes carry no ids we could know, so the events carry none either: clients treat an id-less
 * change event as "refresh everything" (docs/rpc.md). Semantic consent (`semantic_projects`, one
 * row per switched-on project: `recall index enable|disable` from a shell) is a fourth family, sent
 * as an id-less `index.changed` so the Index panel stops showing a project "On" after it was
 * switched off elsewhere; the index's own derived tables (chunks, queue) still wake nobody.
 */
import type { RecallDatabase } from '@recall/schema';
import type { EventHub } from './events.js';

export const DEFAULT_EXTERNAL_WRITE_POLL_MS = 500;

export interface ExternalWriteWatcher {
  /** Checks once now (also what the timer runs); true when another connection had written. */
  check(): boolean;
  stop(): void;
}

/**
 * One row, four families. New messages count as a sessions change too: an append moves its
 * session's `updated_at` (last activity, sidebar order, message count), which the client lists show.
 * Consent is read from its own small table (one row per project ever switched on).
 */
const FINGERPRINT_SQL = `select c.projects as projects,
    c.sessions || ':' || coalesce((select max(rowid) from sessions), 0) || ':' || coalesce((select max(id) from messages), 0) as sessions,
    c.messages || ':' || coalesce((select max(id) from messages), 0) as messages,
    (select count(*) || ':' || coalesce(sum(enabled), 0) || ':' || coalesce(max(updated_at), 0) || ':' || coalesce(group_concat(endpoint), '') from semantic_projects) as consent
  from change_counter c where c.id = 1`;

type Family = 'projects' | 'sessions' | 'messages' | 'consent';
type Fingerprint = Record<Family, string>;
const FAMILIES: readonly Family[] = ['projects', 'sessions', 'messages', 'consent'];

export function watchExternalWrites(db: RecallDatabase, events: EventHub, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): ExternalWriteWatcher {
  const read = (): number => db.raw.pragma('data_version', { simple: true }) as number;
  const statement = db.raw.prepare(FINGERPRINT_SQL);
  const fingerprint = (): Fingerprint => {
    const row = statement.get() as Record<Family, number | string> | undefined;
    return { projects: String(row?.projects ?? ''), sessions: String(row?.sessions ?? ''), messages: String(row?.messages ?? ''), consent: String(row?.consent ?? '') };
  };
  let last = read();
  let seen = fingerprint();
  const check = (): boolean => {
    if (!db.raw.open) return false;
    let now: number;
    let current: Fingerprint;
    try {
      now = read();
      // Our own writes move the fingerprint but not data_version; they are folded into the next
      // foreign write's comparison, which costs at most one extra refresh, never a missed one.
      if (now === last) return false;
      current = fingerprint();
    } catch (error) {
      // A timer callback that threw would take the gateway down; the next tick tries again.
      options.onError?.(error);
      return false;
    }
    last = now;
    const changed = FAMILIES.filter((k) => current[k] !== seen[k]);
    seen = current;
    if (changed.includes('projects')) events.emit({ type: 'projects.changed' });
    // No `unassigned` either: it names the "No project" group, which would narrow "refresh everything".
    if (changed.includes('sessions')) events.emit({ type: 'sessions.changed' });
    if (changed.includes('messages')) events.emit({ type: 'messages.changed' });
    if (changed.includes('consent')) events.emit({ type: 'index.changed' });
    return changed.length > 0;
  };
  const timer = setInterval(check, options.intervalMs ?? DEFAULT_EXTERNAL_WRITE_POLL_MS);
  // The watcher never keeps a process alive on its own.
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
