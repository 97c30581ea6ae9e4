/**
 * Reader for Hermes agent state: a `state.db` SQLite file, opened READ-ONLY (sources/hermes-sqlite.ts holds
 * the SQL that reads it; this module maps rows onto import records). The columns read are listed in docs/importers.md (`HERMES_COLUMNS` below); a missing
 * optional column reads as NULL, a missing required one is a clear error. Maps:
 *
 * - `sessions` → sessions with their own id. Lineage: no parent → root; a `model_config` JSON
 *   marker (`"lineage": "branch"|"reset"|"delegation"|"compression"`, or `branched_from` /
 *   `reset_from` / `delegated_from` / `subagent: true`) decides; otherwise a parent whose
 *   `end_reason` is a compression (`compression`, `compressed`, `context_compression`) makes a
 *   compression continuation, and any other parent a branch. Parents are read before children.
 *   `cwd`, `git_repo_root`, `title`, `model`, `archived`, `hidden`, `started_at`/`ended_at`
 *   (epoch seconds), `end_reason` are copied.
 * - `messages` → messages with external id `h<id>`. Visibility: `compacted = 1` → compacted;
 *   `active = 0` and `compacted = 0` → rewound; else live. `display_kind = 'summary'` or
 *   `'system_note'` → a `system` message.
 * - Profiles: a Hermes home (`~/.hermes`) holds `state.db` for the default profile and
 *   `profiles/<name>/state.db` for the others; each goes to the Recall profile of the same name
 *   (the CLI picks the target database).
 *
 * Messages are read in id order with a cursor (`id > ?`, pages of 5000): constant memory, and live
 * sync resumes from the last id it imported.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type LineageKind, MAX_MESSAGE_CHARS, type MessageRole } from '@recall/rpc-contract';
import { openHermesStateDb } from './sources/hermes-sqlite.js';
import { clipContent, isObject, safeSessionId, toMs, type SourceRecord } from './records.js';

export const HERMES_SOURCE = 'hermes';

/** Columns read from a Hermes state.db; `required` ones must exist. */
export const HERMES_COLUMNS = {
  sessions: {
    required: ['id'],
    optional: ['parent_session_id', 'end_reason', 'model_config', 'model', 'cwd', 'git_repo_root', 'title', 'archived', 'hidden', 'started_at', 'ended_at'],
  },
  messages: {
    required: ['id', 'session_id', 'role', 'content'],
    optional: ['tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'active', 'compacted', 'display_kind'],
  },
} as const;

export interface HermesStore {
  path: string;
  /** Recall profile the store maps to (null = the profile the command runs with). */
  profile: string | null;
}

/** A state.db file, or a Hermes home with `state.db` and `profiles/<name>/state.db`. */
export function hermesStores(path: string): HermesStore[] {
  if (statSync(path).isFile()) return [{ path, profile: null }];
  const out: HermesStore[] = [];
  if (existsSync(join(path, 'state.db'))) out.push({ path: join(path, 'state.db'), profile: null });
  const profilesDir = join(path, 'profiles');
  if (existsSync(profilesDir)) {
    for (const entry of readdirSync(profilesDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory() && existsSync(join(profilesDir, entry.name, 'state.db'))) out.push({ path: join(profilesDir, entry.name, 'state.db'), profile: entry.name });
    }
  }
  return out;
}

const COMPRESSION_REASONS = new Set(['compression', 'compressed', 'context_compression', 'compact', 'compaction']);

function lineageOf(row: Record<string, unknown>, parentEndReason: string | null): LineageKind {
  if (row.parent_session_id === null || row.parent_session_id === undefined) return 'root';
  let config: unknown = null;
  if (typeof row.model_config === 'string') {
    try {
      config = JSON.parse(row.model_config);
    } catch {
      config = null;
    }
  }
  if (isObject(config)) {
    const marker = config.lineage;
    if (marker === 'branch' || marker === 'reset' || marker === 'delegation' || marker === 'compression') return marker;
    if (config.branched_from !== undefined) return 'branch';
    if (config.reset_from !== undefined) return 'reset';
    if (config.delegated_from !== undefined || config.subagent === true) return 'delegation';
  }
  return parentEndReason !== null && COMPRESSION_REASONS.has(parentEndReason) ? 'compression' : 'branch';
}

export interface HermesCursor {
  /** Highest message id already read. */
  lastMessageId: number;
}

/**
 * Records of one state.db: every session (parents first), then messages with id > cursor. The
 * database is opened read-only for the duration of the iteration and closed after.
 */
export async function* readHermesStore(path: string, cursor: HermesCursor = { lastMessageId: 0 }): AsyncGenerator<SourceRecord> {
  const db = openHermesStateDb(path, HERMES_COLUMNS);
  try {
    const sessions = db.sessions();
    const byId = new Map(sessions.map((s) => [String(s.id), s]));
    const emitted = new Set<string>();
    const ids = new Map<string, string>();
    const idOf = (raw: unknown) => {
      const key = String(raw);
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = safeSessionId(key)));
      return id;
    };
    const emit = function* (row: Record<string, unknown>, depth: number): Generator<SourceRecord> {
      const key = String(row.id);
      if (emitted.has(key) || depth > 1000) return;
      const parentKey = row.parent_session_id === null || row.parent_session_id === undefined ? null : String(row.parent_session_id);
      const parent = parentKey !== null ? byId.get(parentKey) : undefined;
      if (parent) yield* emit(parent, depth + 1); // parents first
      emitted.add(key);
      const lineage = parent ? lineageOf(row, typeof parent.end_reason === 'string' ? parent.end_reason : null) : 'root';
      yield {
        kind: 'session',
        file: path,
        line: 0,
        id: idOf(key),
        parentId: parent ? idOf(parentKey) : null,
        lineage,
        source: HERMES_SOURCE,
        title: typeof row.title === 'string' && row.title.trim() !== '' ? row.title.slice(0, 500) : null,
        cwd: typeof row.cwd === 'string' ? row.cwd : null,
        gitRepoRoot: typeof row.git_repo_root === 'string' ? row.git_repo_root : null,
        model: typeof row.model === 'string' ? row.model.slice(0, 200) : null,
        ...(toMs(row.started_at) !== undefined ? { startedAt: toMs(row.started_at)! } : {}),
        endedAt: toMs(row.ended_at) ?? null,
        endReason: typeof row.end_reason === 'string' ? row.end_reason.slice(0, 200) : null,
        archived: Number(row.archived ?? 0) === 1,
        ...(lineage === 'delegation' || Number(row.hidden ?? 0) === 1 ? { hidden: true } : {}),
      };
    };
    for (const row of sessions) yield* emit(row, 0);

    let last = cursor.lastMessageId;
    for (;;) {
      const rows = db.messagesAfter(last, 5000);
      if (rows.length === 0) break;
      for (const row of rows) {
        last = Number(row.id);
        const sessionKey = String(row.session_id);
        if (!byId.has(sessionKey)) {
          yield { kind: 'error', file: path, line: last, code: 'session_not_found', message: `Message ${last} belongs to unknown session ${JSON.stringify(sessionKey)}.` };
          continue;
        }
        const rawRole = String(row.role);
        const displayKind = typeof row.display_kind === 'string' ? row.display_kind : null;
        const role: MessageRole =
          displayKind === 'summary' || displayKind === 'system_note' ? 'system' : rawRole === 'user' || rawRole === 'assistant' || rawRole === 'tool' || rawRole === 'system' ? rawRole : 'system';
        const compacted = Number(row.compacted ?? 0) === 1;
        const active = row.active === null || row.active === undefined ? true : Number(row.active) === 1;
        const toolCalls = typeof row.tool_calls === 'string' && row.tool_calls !== '' ? row.tool_calls : null;
        yield {
          kind: 'message',
          file: path,
          line: last,
          sessionId: idOf(sessionKey),
          externalId: `h${last}`,
          role,
          content: clipContent(typeof row.content === 'string' ? row.content : row.content === null ? '' : String(row.content)),
          ...(toMs(row.timestamp) !== undefined ? { createdAt: toMs(row.timestamp)! } : {}),
          toolName: typeof row.tool_name === 'string' ? row.tool_name.slice(0, 200) : null,
          toolCalls: toolCalls !== null && toolCalls.length <= MAX_MESSAGE_CHARS ? toolCalls : null,
          toolCallId: typeof row.tool_call_id === 'string' ? row.tool_call_id.slice(0, 200) : null,
          visibility: compacted ? 'compacted' : active ? 'live' : 'rewound',
        };
      }
      cursor.lastMessageId = last;
    }
  } finally {
    db.close();
  }
}
