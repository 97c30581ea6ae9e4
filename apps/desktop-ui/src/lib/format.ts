/**
 * Small display formatters: dates (absolute and relative), paths shortened for the sidebar,
 * titles derived from a first message, and result dates that may arrive as ms or ISO strings.
 */

export function toDate(value: number | string | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = typeof value === 'number' ? new Date(value) : new Date(/^\d+$/.test(value) ? Number(value) : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatDate(value: number | string | null | undefined): string {
  const d = toDate(value);
  if (!d) return '';
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** ISO form for a `<time dateTime>` attribute ('' when unknown). */
export function isoOf(value: number | string | null | undefined): string {
  return toDate(value)?.toISOString() ?? '';
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", else a short date. */
export function formatRelative(value: number | string | null | undefined, now = Date.now()): string {
  const d = toDate(value);
  if (!d) return '';
  const diff = now - d.getTime();
  if (diff < 0) return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const min = Math.floor(diff / 60_000);
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ago`;
  const days = Math.floor(h / 24);
  if (days < 7) return `${days} d ago`;
  return d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Keeps the last `keep` segments of a path: /home/dev/src/app → …/src/app. */
export function shortPath(path: string, keep = 2): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  if (parts.length <= keep) return path;
  return `…/${parts.slice(-keep).join('/')}`;
}

/** Last segment of a path, as a suggested project name. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** A title from the first message: first line, whitespace collapsed, at most `max` characters. */
export function titleFromText(text: string, max = 60): string {
  const line = text.trim().split('\n')[0]?.replace(/\s+/g, ' ').trim() ?? '';
  const chars = Array.from(line);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line;
}

/**
 * A conversation's message count as the sidebar says it: the part the view opens (the newest
 * compression part) and what lies in its compressed earlier parts, so "7" never stands beside a
 * view of 3. Delegated (subagent) sessions are not counted: the view does not show them.
 */
export function messageCountText(
  members: ReadonlyArray<{ id: string; messageCount?: number | null; lineage?: string | null }>,
  headId: string,
): { short: string; long: string } | null {
  let open = 0;
  let earlier = 0;
  for (const m of members) {
    if (m.lineage === 'delegation') continue;
    if (m.id === headId) open += m.messageCount ?? 0;
    else earlier += m.messageCount ?? 0;
  }
  const total = open + earlier;
  if (total === 0) return null;
  const n = (k: number) => `${k.toLocaleString()} ${k === 1 ? 'message' : 'messages'}`;
  if (earlier === 0) return { short: `${total.toLocaleString()} msg`, long: n(total) };
  return { short: `${open.toLocaleString()} msg + ${earlier.toLocaleString()} earlier`, long: `${n(total)}, ${earlier.toLocaleString()} in the compressed earlier part` };
}
