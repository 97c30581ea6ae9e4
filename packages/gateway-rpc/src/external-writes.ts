/**
 * Notices writes made by other processes (`recall import`, `recall mv` from a shell, a second
 * gateway, an agent's MCP host) so WebSocket clients refresh as they do after the gateway's own
 * writes. SQLite's `PRAGMA data_version` changes on a connection whenever ANOTHER connection has
 * committed to the file since it was last read (never for the connection's own writes, which
 * already emit precise events), so polling it on the gateway's main connection is a cheap, exact
 * "someone else wrote" signal. Only then, a small fingerprint per table family (row counts, newest
 * id, newest update time) says WHAT changed, so writes that touch none of them (e.g. a semantic
 * index filling its own tables) wake nobody. The other process's writes carry no ids we could know,
 * so the events carry none either: clients treat an id-less change event as "refresh everything"
 * (docs/rpc.md). Known blind spot: a foreign rewind/delete that changes only a message's visibility
 * leaves the fingerprint as it was and is picked up by the next other change.
 */
import type { RecallDatabase } from '@recall/schema';
import type { EventHub } from './events.js';

export const DEFAULT_EXTERNAL_WRITE_POLL_MS = 500;

export interface ExternalWriteWatcher {
  /** Checks once now (also what the timer runs); true when another connection had written. */
  check(): boolean;
  stop(): void;
}

const FINGERPRINTS = {
  projects: 'select (select count(*) from projects) || \':\' || (select coalesce(max(updated_at), 0) from projects) || \':\' || (select count(*) from project_folders)',
  sessions: 'select count(*) || \':\' || coalesce(max(updated_at), 0) from sessions',
  messages: 'select count(*) || \':\' || coalesce(max(id), 0) || \':\' || coalesce(max(edited_at), 0) from messages',
} as const;

export function watchExternalWrites(db: RecallDatabase, events: EventHub, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): ExternalWriteWatcher {
  const read = (): number => db.raw.pragma('data_version', { simple: true }) as number;
  const statement = (sql: string) => db.raw.prepare(sql).pluck();
  const statements = { projects: statement(FINGERPRINTS.projects), sessions: statement(FINGERPRINTS.sessions), messages: statement(FINGERPRINTS.messages) };
  const fingerprint = (): Record<keyof typeof FINGERPRINTS, string> => ({
    projects: String(statements.projects.get()),
    sessions: String(statements.sessions.get()),
    messages: String(statements.messages.get()),
  });
  let last = read();
  let seen = fingerprint();
  const check = (): boolean => {
    if (!db.raw.open) return false;
    let now: number;
    try {
      now = read();
    } catch (error) {
      options.onError?.(error);
      return false;
    }
    // Our own writes move the fingerprint but not data_version; they are folded into the next
    // foreign write's comparison, which costs at most one extra refresh, never a missed one.
    if (now === last) return false;
    last = now;
    const current = fingerprint();
    const changed = (Object.keys(current) as (keyof typeof current)[]).filter((k) => current[k] !== seen[k]);
    seen = current;
    if (changed.includes('projects')) events.emit({ type: 'projects.changed' });
    if (changed.includes('sessions')) events.emit({ type: 'sessions.changed', unassigned: true });
    if (changed.includes('messages')) events.emit({ type: 'messages.changed' });
    return changed.length > 0;
  };
  const timer = setInterval(check, options.intervalMs ?? DEFAULT_EXTERNAL_WRITE_POLL_MS);
  // The watcher never keeps a process alive on its own.
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
