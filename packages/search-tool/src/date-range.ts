/**
 * The `since` / `until` arguments of session_search turned into a time range when the call runs:
 * an ISO date is a whole UTC day (`since` from its start, `until` through its end), an ISO
 * date-time is that instant (UTC unless it names an offset), and a relative bound (`30m`, `24h`,
 * `7d`, `2w`) is that long before now. The range is half-open, [since, until), in epoch ms, and is
 * applied inside the SQL of every shape that searches or lists (keyword discover, the semantic
 * allowed set, browse). A bound that names no real time, or a `since` at or after `until`, is an
 * `invalid_arguments` error result, never a silently empty search.
 */
import { ToolError } from './errors.js';

/** A resolved date range: epoch ms, `since` inclusive, `until` exclusive; an absent key is unbounded. */
export interface DateRange {
  since?: number;
  until?: number;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Relative bounds reach at most this far back (100 years). */
const MAX_RELATIVE_MS = 100 * 365.25 * 86_400_000;
const DAY_MS = 86_400_000;

function parseBound(which: 'since' | 'until', text: string, now: number): number {
  const t = text.trim();
  const rel = /^(\d{1,6})([mhdw])$/.exec(t);
  if (rel) {
    const span = Number(rel[1]) * UNIT_MS[rel[2]!]!;
    if (span > MAX_RELATIVE_MS) throw new ToolError('invalid_arguments', `Invalid arguments: ${which}: ${JSON.stringify(t)} reaches more than 100 years back.`);
    return now - span;
  }
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (day) {
    const start = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const check = new Date(start);
    if (check.getUTCFullYear() !== Number(day[1]) || check.getUTCMonth() !== Number(day[2]) - 1 || check.getUTCDate() !== Number(day[3])) {
      throw new ToolError('invalid_arguments', `Invalid arguments: ${which}: ${JSON.stringify(t)} is not a calendar date.`);
    }
    return which === 'since' ? start : start + DAY_MS;
  }
  // A date-time without an offset is read as UTC (Date.parse would read it as local time).
  const iso = t.replace(' ', 'T');
  const withZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`;
  const ms = Date.parse(withZone);
  if (!Number.isFinite(ms)) throw new ToolError('invalid_arguments', `Invalid arguments: ${which}: ${JSON.stringify(t)} is not a valid date or time.`);
  return ms;
}

/**
 * The range of `since` / `until` at time `now` (epoch ms). Throws ToolError `invalid_arguments` for a
 * bound naming no real time or an empty range; the tool turns that into an error result.
 */
export function resolveDateRange(args: { since?: string | undefined; until?: string | undefined }, now: number): DateRange {
  const range: DateRange = {};
  if (args.since !== undefined) range.since = parseBound('since', args.since, now);
  if (args.until !== undefined) range.until = parseBound('until', args.until, now);
  if (range.since !== undefined && range.until !== undefined && range.since >= range.until) {
    throw new ToolError('invalid_arguments', `Invalid arguments: since (${new Date(range.since).toISOString()}) must be before until (${new Date(range.until).toISOString()}).`);
  }
  return range;
}

/** True when the range bounds anything. */
export function isDated(range: DateRange): boolean {
  return range.since !== undefined || range.until !== undefined;
}

/** The range in words for notes, e.g. "from 2026-11-24 14:00 UTC until 2026-12-01 14:00 UTC". */
export function describeRange(range: DateRange): string {
  const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  if (range.since !== undefined && range.until !== undefined) return `from ${fmt(range.since)} until ${fmt(range.until)}`;
  if (range.since !== undefined) return `since ${fmt(range.since)}`;
  if (range.until !== undefined) return `before ${fmt(range.until)}`;
  return 'at any time';
}
