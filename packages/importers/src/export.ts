/**
 * Export of a project or of one logical conversation, in two formats:
 * - `recall-jsonl`: the importer's own format (docs/import-format.md), so `recall import` of the
 *   file into an empty home gives the same projects, session ids, lineage, visibility and text.
 *   Sessions come parents first; project and session times are integer milliseconds (exact).
 *   Soft-deleted messages are left out (they were deleted); rewound ones are kept with their
 *   visibility. A message without an external id gets `recall:<message id>` (the importer needs one).
 *   A branch or reset whose origin is not part of the export is written as a root (its origin
 *   would be missing in the importing home).
 * - `markdown`: for people — title, dates, roles, tool calls and tool output folded in
 *   `<details>`; only what a reader of the conversation sees (live and compacted messages).
 * Everything is read through the storage ports (SQLite or PostgreSQL) inside one read scope of the
 * exported project (or of the conversation's sessions, for one without a project) — on PostgreSQL a
 * read-only transaction under row-level security, so an export can only ever contain that scope's
 * rows — and produced as a stream of text pieces, so a caller can write a file of any size;
 * `exportText` collects it up to a bound.
 */
import { EXPORT_FORMAT_NAMES, type Message, type Project, type Session } from '@recall/rpc-contract';
import { withReadScope, type ReadScope, type Storage } from '@recall/storage-ports';
import { ExportTooLargeError } from './errors.js';
import { storageOf, type ImportTarget } from './target.js';

/** One of the contract's EXPORT_FORMAT_NAMES (`recall export --format`, the `*.export` RPC methods). */
export type ExportFormat = (typeof EXPORT_FORMAT_NAMES)[number];
/** What to export: a whole project, or the logical conversation a session belongs to. */
export type ExportScope = { projectId: string } | { sessionId: string };

/** Counts of what an export wrote. */
export interface ExportCounts {
  projects: number;
  sessions: number;
  messages: number;
}

interface Snapshot {
  project: Project | null;
  sessions: Session[];
}

/** Parents before children; sessions whose parent is not exported keep their own place. */
function parentsFirst(sessions: Session[]): Session[] {
  const ids = new Set(sessions.map((s) => s.id));
  const children = new Map<string, Session[]>();
  const roots: Session[] = [];
  for (const s of sessions) {
    if (s.parentSessionId !== null && ids.has(s.parentSessionId) && s.parentSessionId !== s.id) {
      const list = children.get(s.parentSessionId) ?? [];
      list.push(s);
      children.set(s.parentSessionId, list);
    } else roots.push(s);
  }
  const out: Session[] = [];
  const seen = new Set<string>();
  const visit = (s: Session): void => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push(s);
    for (const c of children.get(s.id) ?? []) visit(c);
  };
  for (const r of roots.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id))) visit(r);
  for (const s of sessions) visit(s); // a cycle in corrupt data: still exported once
  return out;
}

async function snapshot(storage: Storage, scope: ExportScope): Promise<Snapshot> {
  if ('sessionId' in scope) {
    const members = await storage.sessions.conversation(scope.sessionId);
    const sessions: Session[] = [];
    for (const m of members) sessions.push(await storage.sessions.get(m.id));
    const projectId = sessions[0]!.projectId;
    return { project: projectId === null ? null : await storage.projects.get(projectId), sessions: parentsFirst(sessions) };
  }
  const project = await storage.projects.get(scope.projectId);
  const sessions: Session[] = [];
  for (let offset = 0; ; offset += 5000) {
    const page = await storage.sessions.list({ projectId: project.id, includeArchived: true, includeHidden: true, limit: 5000, offset });
    sessions.push(...page);
    if (page.length < 5000) break;
  }
  return { project, sessions: parentsFirst(sessions) };
}

/** Every message of a session in id order, hidden ones included, page by page. */
async function* messagesOf(storage: Storage, sessionId: string): AsyncGenerator<Message> {
  let afterId = 0;
  for (;;) {
    const page = await storage.messages.list(sessionId, { afterId, limit: 10_000, includeHidden: true });
    yield* page;
    if (page.length < 10_000) return;
    afterId = page[page.length - 1]!.id;
  }
}

function projectLine(p: Project): string {
  return JSON.stringify({
    kind: 'project',
    id: p.id,
    name: p.name,
    ...(p.description !== null ? { description: p.description } : {}),
    ...(p.color !== null ? { color: p.color } : {}),
    ...(p.icon !== null ? { icon: p.icon } : {}),
    ...(p.folders.length > 0 ? { folders: [...p.folders].sort((a, b) => Number(b.isPrimary) - Number(a.isPrimary)).map((f) => f.path) } : {}),
    ...(p.archived ? { archived: true } : {}),
  });
}

function sessionLine(s: Session, exported: ReadonlySet<string>): string {
  const keepsParent = s.parentSessionId !== null && exported.has(s.parentSessionId);
  return JSON.stringify({
    kind: 'session',
    id: s.id,
    project_id: s.projectId,
    ...(keepsParent ? { parent_session_id: s.parentSessionId, lineage: s.lineage } : {}),
    source: s.source,
    title: s.title,
    cwd: s.cwd,
    git_repo_root: s.gitRepoRoot,
    git_branch: s.gitBranch,
    model: s.model,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    end_reason: s.endReason,
    ...(s.archived ? { archived: true } : {}),
    // Delegation children are hidden by default on import: say it whenever it is not that default.
    ...(s.hidden || s.lineage === 'delegation' ? { hidden: s.hidden } : {}),
  });
}

function messageLine(m: Message): string {
  return JSON.stringify({
    kind: 'message',
    session_id: m.sessionId,
    external_id: m.externalId ?? `recall:${m.id}`,
    role: m.role,
    content: m.content,
    created_at: m.createdAt,
    ...(m.toolName !== null ? { tool_name: m.toolName } : {}),
    ...(m.toolCalls !== null ? { tool_calls: m.toolCalls } : {}),
    ...(m.toolCallId !== null ? { tool_call_id: m.toolCallId } : {}),
    ...(m.visibility !== 'live' ? { visibility: m.visibility } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Markdown

const ROLE_NAMES: Record<string, string> = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' };

function when(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, ' UTC');
}

/** A fenced block that cannot be closed early by the text inside it. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function toolCallNames(toolCalls: string): string[] {
  try {
    const calls = JSON.parse(toolCalls) as unknown;
    const list = Array.isArray(calls) ? calls : [calls];
    return list.map((c) => {
      const call = c as { function?: { name?: unknown }; name?: unknown };
      const name = call?.function?.name ?? call?.name;
      return typeof name === 'string' ? name : 'tool';
    });
  } catch {
    return ['tool'];
  }
}

function markdownMessage(m: Message): string {
  const head = `### ${ROLE_NAMES[m.role] ?? m.role}${m.role === 'tool' && m.toolName ? ` (${m.toolName})` : ''} · ${when(m.createdAt)}${m.visibility === 'compacted' ? ' · compacted' : ''}`;
  const parts = [head, ''];
  if (m.role === 'tool') {
    parts.push(`<details><summary>Tool output${m.toolName ? `: ${escapeHtml(m.toolName)}` : ''} (${m.content.length.toLocaleString('en')} characters)</summary>`, '', fenced(m.content), '', '</details>');
  } else if (m.content !== '') parts.push(m.content);
  if (m.toolCalls !== null) {
    parts.push('', `<details><summary>Tool call${toolCallNames(m.toolCalls).length === 1 ? '' : 's'}: ${escapeHtml(toolCallNames(m.toolCalls).join(', '))}</summary>`, '', fenced(prettyJson(m.toolCalls), 'json'), '', '</details>');
  }
  return `${parts.join('\n')}\n\n`;
}

async function* markdown(storage: Storage, snap: Snapshot, counts: ExportCounts, scope: ExportScope): AsyncGenerator<string> {
  counts.projects = snap.project ? 1 : 0;
  if ('projectId' in scope && snap.project) {
    yield `# ${snap.project.name}\n\n`;
    if (snap.project.description) yield `${snap.project.description}\n\n`;
    yield `Project \`${snap.project.id}\` · ${snap.sessions.filter((s) => !s.hidden).length} conversation segment(s) · exported ${when(Date.now())}\n\n`;
  }
  const level = 'projectId' in scope ? '##' : '#';
  for (const s of snap.sessions) {
    counts.sessions++;
    const label = s.lineage === 'compression' ? ' (continued)' : s.lineage === 'delegation' ? ' (sub-agent)' : '';
    yield `${level} ${s.title ?? 'Untitled conversation'}${label}\n\n`;
    const facts = [`Started ${when(s.startedAt)}`, ...(s.endedAt !== null ? [`ended ${when(s.endedAt)}`] : []), ...(snap.project && 'sessionId' in scope ? [`project ${snap.project.name}`] : []), `source ${s.source}`, `session \`${s.id}\``];
    yield `${facts.join(' · ')}${s.cwd ? `  \nFolder: \`${s.cwd}\`` : ''}\n\n`;
    let hidden = 0;
    for await (const m of messagesOf(storage, s.id)) {
      if (m.visibility === 'rewound' || m.visibility === 'deleted') {
        hidden++;
        continue;
      }
      counts.messages++;
      yield markdownMessage(m);
    }
    if (hidden > 0) yield `_${hidden} rewound or deleted message(s) not shown._\n\n`;
  }
}

async function* jsonl(storage: Storage, snap: Snapshot, counts: ExportCounts): AsyncGenerator<string> {
  if (snap.project) {
    yield `${projectLine(snap.project)}\n`;
    counts.projects = 1;
  }
  const exported = new Set(snap.sessions.map((s) => s.id));
  for (const s of snap.sessions) {
    yield `${sessionLine(s, exported)}\n`;
    counts.sessions++;
    for await (const m of messagesOf(storage, s.id)) {
      if (m.visibility === 'deleted') continue;
      yield `${messageLine(m)}\n`;
      counts.messages++;
    }
  }
}

/**
 * The read scope an export runs in: the exported project, or — for a conversation without a
 * project — its own sessions. Throws ProjectNotFoundError / SessionNotFoundError.
 */
async function readScopeOf(storage: Storage, scope: ExportScope): Promise<ReadScope> {
  if ('projectId' in scope) return { kind: 'project', projectId: (await storage.projects.get(scope.projectId)).id };
  const projectId = await storage.sessions.projectId(scope.sessionId);
  if (projectId !== null) return { kind: 'project', projectId };
  return { kind: 'sessions', sessionIds: (await storage.sessions.conversation(scope.sessionId)).map((m) => m.id) };
}

/**
 * Writes the export piece by piece to `write` (a file stream, stdout, a buffer) from a storage (SQLite
 * or PostgreSQL) or an open profile database, all inside one read scope, and returns the counts.
 * Throws the store's ProjectNotFoundError / SessionNotFoundError before writing anything; an error
 * thrown by `write` stops the export.
 */
export async function exportConversations(source: ImportTarget, scope: ExportScope, format: ExportFormat, write: (piece: string) => void): Promise<ExportCounts> {
  const storage = storageOf(source);
  const counts: ExportCounts = { projects: 0, sessions: 0, messages: 0 };
  await withReadScope(storage, await readScopeOf(storage, scope), async (scoped) => {
    const snap = await snapshot(scoped, scope);
    const pieces = format === 'markdown' ? markdown(scoped, snap, counts, scope) : jsonl(scoped, snap, counts);
    for await (const piece of pieces) write(piece);
  });
  return counts;
}

/** Default bound of `exportText` (characters): what an RPC answer may carry. */
export const MAX_EXPORT_TEXT_CHARS = 32 * 1024 * 1024;

/**
 * The whole export as one string, for the RPC methods (the desktop's "Export…"). Throws
 * ExportTooLargeError (code `export_too_large`) past `maxChars` — `recall export --to FILE` has no bound.
 */
export async function exportText(source: ImportTarget, scope: ExportScope, format: ExportFormat, maxChars = MAX_EXPORT_TEXT_CHARS): Promise<{ text: string; counts: ExportCounts }> {
  const pieces: string[] = [];
  let size = 0;
  const counts = await exportConversations(source, scope, format, (piece) => {
    size += piece.length;
    if (size > maxChars) throw new ExportTooLargeError(maxChars);
    pieces.push(piece);
  });
  return { text: pieces.join(''), counts };
}

/** A file name for an export: the project's or conversation's title made safe, and the format's extension. */
export async function exportFileName(source: ImportTarget, scope: ExportScope, format: ExportFormat): Promise<string> {
  const storage = storageOf(source);
  const title = 'projectId' in scope ? (await storage.projects.get(scope.projectId)).name : ((await storage.sessions.get(scope.sessionId)).title ?? scope.sessionId);
  const safe = title.normalize('NFKC').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'conversation';
  return `${safe}.${format === 'markdown' ? 'md' : 'jsonl'}`;
}
