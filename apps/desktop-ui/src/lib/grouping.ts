/**
 * Pure shaping of the sidebar: sessions → logical conversations (a root plus its compression
 * continuations; delegation children stay inside their parent) → groups by the stored `projectId`
 * (the only membership rule; cwd and folders never decide it) plus the "No project" group, and
 * turning a `conversations.list` entry into a sidebar conversation.
 */
import type { ConversationPageItem, Project, Session } from '@recall/rpc-contract';

export interface Conversation {
  /** Stable key: the root session id. */
  key: string;
  root: Session;
  /** The newest continuation: the session the conversation is opened and appended as. */
  head: Session;
  members: Session[];
  projectId: string | null;
  title: string;
  lastActivity: number;
}

export interface ProjectGroupModel {
  /** Project id, or NO_PROJECT for the null group. */
  key: string;
  project: Project | null;
  conversations: Conversation[];
}

export const NO_PROJECT = '__none__';

/** The group key of a project id (null → NO_PROJECT). */
export function groupKey(projectId: string | null): string {
  return projectId ?? NO_PROJECT;
}

const INSIDE_EDGES = new Set(['compression', 'delegation']);

/** Last activity = the newest message (else the start). Not updatedAt: a move or cwd change is not activity. */
export function sessionActivity(s: Session): number {
  return Math.max(s.lastMessageAt ?? 0, s.startedAt ?? 0);
}

export function displayTitle(s: Pick<Session, 'title' | 'id'>): string {
  const t = s.title?.trim();
  return t ? t : 'Untitled conversation';
}

/**
 * Folds sessions into logical conversations. A compression or delegation child whose parent is in
 * the list joins the parent's conversation (followed only along those edges — never every parent
 * edge); branch and reset sessions start their own. Hidden sessions are left out. The head is the
 * newest compression continuation (delegations never become the head).
 */
export function logicalConversations(sessions: Session[]): Conversation[] {
  const visible = sessions.filter((s) => !s.hidden);
  const byId = new Map(visible.map((s) => [s.id, s]));

  const rootOf = (s: Session): Session => {
    let cur = s;
    const seen = new Set<string>();
    while (cur.parentSessionId && INSIDE_EDGES.has(cur.lineage) && !seen.has(cur.id)) {
      seen.add(cur.id);
      const parent = byId.get(cur.parentSessionId);
      if (!parent) break;
      cur = parent;
    }
    return cur;
  };

  const groups = new Map<string, Session[]>();
  for (const s of visible) {
    const r = rootOf(s);
    const list = groups.get(r.id);
    if (list) list.push(s);
    else groups.set(r.id, [s]);
  }

  const out: Conversation[] = [];
  for (const [rootId, members] of groups) {
    const root = byId.get(rootId)!;
    const continuations = members.filter((m) => m.lineage !== 'delegation' || m.id === rootId);
    const head = continuations.reduce((a, b) => (b.startedAt > a.startedAt || (b.startedAt === a.startedAt && b.createdAt > a.createdAt) ? b : a));
    members.sort((a, b) => a.startedAt - b.startedAt);
    out.push({
      key: rootId,
      root,
      head,
      members,
      projectId: head.projectId,
      title: displayTitle(root.title ? root : head),
      lastActivity: Math.max(...members.map(sessionActivity)),
    });
  }
  out.sort((a, b) => b.lastActivity - a.lastActivity || a.key.localeCompare(b.key));
  return out;
}

/**
 * One `conversations.list` entry as a sidebar conversation: the gateway already folded the members
 * in SQL; this picks the head and title with the same rules as `logicalConversations`.
 */
export function conversationFromPage(item: ConversationPageItem): Conversation {
  const folded = logicalConversations(item.sessions.map((s) => ({ ...s, hidden: false })));
  const c = folded.find((x) => x.key === item.rootId) ?? folded[0];
  if (!c) throw new Error(`conversation ${item.rootId} came without sessions`);
  return { ...c, key: item.rootId, lastActivity: Math.max(c.lastActivity, item.lastActivity) };
}

/**
 * Groups conversations by stored project id. Every listed project gets a group (even empty), in
 * the given order; conversations pointing at a project missing from the list get a placeholder
 * group so nothing silently disappears; the "No project" group comes last.
 */
export function groupByProject(projects: Project[], conversations: Conversation[]): ProjectGroupModel[] {
  const groups = new Map<string, ProjectGroupModel>();
  for (const p of projects) groups.set(p.id, { key: p.id, project: p, conversations: [] });
  const orphans = new Map<string, ProjectGroupModel>();
  const none: ProjectGroupModel = { key: NO_PROJECT, project: null, conversations: [] };
  for (const c of conversations) {
    if (c.projectId === null) {
      none.conversations.push(c);
      continue;
    }
    const g = groups.get(c.projectId) ?? orphans.get(c.projectId);
    if (g) g.conversations.push(c);
    else orphans.set(c.projectId, { key: c.projectId, project: null, conversations: [c] });
  }
  return [...groups.values(), ...orphans.values(), none];
}

/** Projects in sidebar order: active ones by name, archived ones after. */
export function sortProjects(projects: Project[]): Project[] {
  return [...projects].sort(
    (a, b) => Number(a.archived) - Number(b.archived) || a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }),
  );
}

/** The project a conversation belongs to, or null; for headers and menus. */
export function projectName(projects: Project[], projectId: string | null): string {
  if (projectId === null) return 'No project';
  return projects.find((p) => p.id === projectId)?.name ?? `Unknown project (${projectId})`;
}

/** Primary folder first, then the rest: folders are metadata shown under the project name. */
export function orderedFolders(p: Project): string[] {
  return [...p.folders].sort((a, b) => Number(b.isPrimary) - Number(a.isPrimary)).map((f) => f.path);
}
