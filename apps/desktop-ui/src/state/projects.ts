/**
 * Sidebar state: projects (incl. archived), each group's conversations paged from the gateway
 * (`conversations.list` per project and for "No project", so an old project is never empty because
 * a global list was cut, and continuations are folded in SQL), the conversation opened by link
 * when it is not on a loaded page (`conversations.get`), discovered folders, and the actions that
 * change them. Nothing here is optimistic: a move calls `session.project.set` and only after the
 * gateway answers are the source and target groups re-listed; on failure the loaded state is left
 * exactly as it was and the error is returned to the caller to show. Refreshes follow gateway
 * events (projects.changed / sessions.changed / messages.changed name the groups involved).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { conversationFromPage, groupKey, sortProjects, type Conversation } from '../lib/grouping';
import { baseName } from '../lib/format';
import type { ConversationPage, DiscoveredFolder, GatewayEvent, Project } from '@recall/rpc-contract';
import { useGatewayEvent } from './events';
import { useRpc } from './rpcContext';

export type MoveTarget = { kind: 'project'; projectId: string } | { kind: 'none' } | { kind: 'folder'; path: string };

export interface MoveOutcome {
  ok: boolean;
  /** Human text: "Moved … to …" or the error with its code. */
  text: string;
  projectId?: string | null;
}

export type LoadState = 'loading' | 'ready' | 'error';

/** Conversations per sidebar page; "Show more" loads the next page of one group. */
export const GROUP_PAGE = 50;
/** A refresh re-reads at most this many of a group's loaded conversations. */
const MAX_REFRESH = 200;

export interface GroupPages {
  conversations: Conversation[];
  nextCursor: string | null;
  total: number;
  loadingMore: boolean;
}

export interface ProjectsApi {
  projects: Project[];
  /** Loaded conversations of every group, plus the one opened by link if no page has it. */
  conversations: Conversation[];
  /** Per group key (project id or NO_PROJECT): paging state. */
  groups: ReadonlyMap<string, GroupPages>;
  loadMore: (projectId: string | null) => Promise<void>;
  /** Makes sure the conversation containing this session is listed (opened by link). */
  ensureListed: (sessionId: string) => Promise<void>;
  discovered: DiscoveredFolder[];
  load: LoadState;
  loadError: string | null;
  /** Conversation keys (root ids) with a move in flight. */
  moving: ReadonlySet<string>;
  reloadAll: () => Promise<void>;
  refreshGroups: (projectIds: Array<string | null>) => Promise<void>;
  /** `confirmHome`: the user confirmed their home folder as the project folder (refused otherwise). */
  createProject: (name: string, folder?: string, confirmHome?: boolean) => Promise<Project>;
  renameProject: (projectId: string, name: string) => Promise<Project>;
  archiveProject: (projectId: string, archived: boolean) => Promise<Project>;
  projectForFolder: (path: string, confirmHome?: boolean) => Promise<Project>;
  addFolder: (projectId: string, path: string, confirmHome?: boolean) => Promise<Project>;
  moveConversation: (conversationKey: string, sessionId: string, fromProjectId: string | null, target: MoveTarget) => Promise<MoveOutcome>;
}

export function useProjects(): ProjectsApi {
  const { rpc } = useRpc();
  const [projects, setProjects] = useState<Project[]>([]);
  const [groups, setGroups] = useState<ReadonlyMap<string, GroupPages>>(new Map());
  const [linked, setLinked] = useState<Conversation | null>(null);
  const groupsRef = useRef(groups);
  groupsRef.current = groups;
  const [discovered, setDiscovered] = useState<DiscoveredFolder[]>([]);
  const [load, setLoad] = useState<LoadState>('loading');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [moving, setMoving] = useState<ReadonlySet<string>>(new Set());
  const projectsRef = useRef(projects);
  projectsRef.current = projects;

  const loadProjects = useCallback(async () => {
    const { projects: list } = await rpc.call('projects.list', { includeArchived: true });
    setProjects(sortProjects(list));
    return list;
  }, [rpc]);

  const loadDiscovered = useCallback(async () => {
    try {
      const { folders } = await rpc.call('projects.discovered', {});
      setDiscovered(folders);
    } catch {
      // Suggestions are optional; the sidebar works without them.
      setDiscovered([]);
    }
  }, [rpc]);

  const fetchGroup = useCallback(
    async (projectId: string | null, limit: number): Promise<[string, GroupPages]> => {
      const page: ConversationPage = await rpc.call('conversations.list', { projectId, limit });
      return [groupKey(projectId), { conversations: page.conversations.map(conversationFromPage), nextCursor: page.nextCursor, total: page.total, loadingMore: false }];
    },
    [rpc],
  );

  /** Re-reads the first page(s) of these groups, as many as were loaded (bounded). */
  const reloadGroups = useCallback(
    async (projectIds: Array<string | null>) => {
      const unique = [...new Set(projectIds)];
      const fresh = await Promise.all(
        unique.map((id) => fetchGroup(id, Math.min(MAX_REFRESH, Math.max(GROUP_PAGE, groupsRef.current.get(groupKey(id))?.conversations.length ?? 0)))),
      );
      setGroups((cur) => {
        const next = new Map(cur);
        for (const [key, g] of fresh) next.set(key, g);
        return next;
      });
    },
    [fetchGroup],
  );

  const loadGroups = useCallback(async (list: Project[]) => {
    const fresh = await Promise.all([null, ...list.map((p) => p.id)].map((id) => fetchGroup(id, GROUP_PAGE)));
    setGroups(new Map(fresh));
  }, [fetchGroup]);

  const loadMore = useCallback(
    async (projectId: string | null) => {
      const key = groupKey(projectId);
      const g = groupsRef.current.get(key);
      if (!g?.nextCursor || g.loadingMore) return;
      setGroups((cur) => new Map(cur).set(key, { ...g, loadingMore: true }));
      try {
        const page = await rpc.call('conversations.list', { projectId, limit: GROUP_PAGE, cursor: g.nextCursor });
        setGroups((cur) => {
          const old = cur.get(key) ?? g;
          const seen = new Set(old.conversations.map((c) => c.key));
          const added = page.conversations.map(conversationFromPage).filter((c) => !seen.has(c.key));
          return new Map(cur).set(key, { conversations: [...old.conversations, ...added], nextCursor: page.nextCursor, total: page.total, loadingMore: false });
        });
      } catch (err) {
        setGroups((cur) => new Map(cur).set(key, { ...(cur.get(key) ?? g), loadingMore: false }));
        throw err;
      }
    },
    [rpc],
  );

  const ensureListed = useCallback(
    async (sessionId: string) => {
      for (const g of groupsRef.current.values()) if (g.conversations.some((c) => c.members.some((m) => m.id === sessionId))) return;
      try {
        setLinked(conversationFromPage(await rpc.call('conversations.get', { sessionId })));
      } catch {
        // The conversation view reports an unknown session; the sidebar just has nothing to show.
      }
    },
    [rpc],
  );

  const reloadAll = useCallback(async () => {
    try {
      const [list] = await Promise.all([loadProjects(), loadDiscovered()]);
      await loadGroups(list);
      setLoad('ready');
      setLoadError(null);
    } catch (err) {
      setLoad('error');
      setLoadError(errorText(err));
    }
  }, [loadProjects, loadGroups, loadDiscovered]);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  const refreshGroups = useCallback(
    async (projectIds: Array<string | null>) => {
      await reloadGroups(projectIds);
      await Promise.all([loadProjects(), loadDiscovered()]);
    },
    [reloadGroups, loadProjects, loadDiscovered],
  );

  /**
   * The groups an event names ("No project" when `unassigned`); all of them when it names none. An
   * event without project or session ids (a write by another process) is "refresh everything",
   * even if it says `unassigned`: the groups the change left are unknown.
   */
  const touched = (batch: GatewayEvent[]): Array<string | null> | 'all' => {
    const out: Array<string | null> = [];
    for (const e of batch) {
      if (!e.projectIds && (!e.unassigned || !e.sessionIds)) return 'all';
      out.push(...(e.projectIds ?? []));
      if (e.unassigned) out.push(null);
    }
    return out;
  };
  const refreshTouched = (batch: GatewayEvent[]) => {
    const t = touched(batch);
    // A session that left a group is dropped there by re-reading every loaded group it could have been in.
    const ids = t === 'all' ? [null, ...projectsRef.current.map((p) => p.id)] : t;
    void reloadGroups(ids).catch(() => undefined);
  };

  useGatewayEvent(['projects.changed'], () => {
    void loadProjects()
      .then((list) => {
        // A project that appeared gets its group.
        const fresh = list.map((p) => p.id).filter((id) => !groupsRef.current.has(id));
        if (fresh.length) void reloadGroups(fresh).catch(() => undefined);
      })
      .catch(() => undefined);
    void loadDiscovered();
  });
  useGatewayEvent(['sessions.changed'], (batch) => {
    refreshTouched(batch);
    void loadProjects().catch(() => undefined);
    void loadDiscovered();
  });
  // New messages change a row's message count and last activity (a chat turn stores several).
  useGatewayEvent(['messages.changed'], (batch) => refreshTouched(batch), 700);

  const createProject = useCallback(
    async (name: string, folder?: string, confirmHome?: boolean) => {
      const p = await rpc.call('projects.create', folder ? { name, folders: [folder], ...(confirmHome ? { confirmHome } : {}) } : { name });
      await loadProjects();
      void loadDiscovered();
      return p;
    },
    [rpc, loadProjects, loadDiscovered],
  );

  const renameProject = useCallback(
    async (projectId: string, name: string) => {
      const p = await rpc.call('projects.update', { projectId, name });
      await loadProjects();
      return p;
    },
    [rpc, loadProjects],
  );

  const archiveProject = useCallback(
    async (projectId: string, archived: boolean) => {
      const p = await rpc.call('projects.archive', { projectId, archived });
      await loadProjects();
      return p;
    },
    [rpc, loadProjects],
  );

  const projectForFolder = useCallback(
    async (path: string, confirmHome?: boolean) => {
      const { project } = await rpc.call('projects.for_folder', { path, name: baseName(path), ...(confirmHome ? { confirmHome } : {}) });
      await loadProjects();
      void loadDiscovered();
      return project;
    },
    [rpc, loadProjects, loadDiscovered],
  );

  const addFolder = useCallback(
    async (projectId: string, path: string, confirmHome?: boolean) => {
      const p = await rpc.call('projects.folders.add', { projectId, path, ...(confirmHome ? { confirmHome } : {}) });
      await loadProjects();
      void loadDiscovered();
      return p;
    },
    [rpc, loadProjects, loadDiscovered],
  );

  const moveConversation = useCallback(
    async (key: string, sessionId: string, fromProjectId: string | null, target: MoveTarget): Promise<MoveOutcome> => {
      setMoving((m) => new Set(m).add(key));
      let madeProject: string | null = null;
      try {
        let projectId: string | null;
        let targetName: string;
        if (target.kind === 'none') {
          projectId = null;
          targetName = 'No project';
        } else if (target.kind === 'project') {
          projectId = target.projectId;
          targetName = projectsRef.current.find((p) => p.id === projectId)?.name ?? projectId;
        } else {
          // A discovered folder is not a project id: make it an explicit project first.
          const project = await projectForFolder(target.path);
          madeProject = project.name;
          projectId = project.id;
          targetName = project.name;
        }
        if (projectId === fromProjectId) return { ok: true, text: `Already in ${targetName}`, projectId };
        const res = await rpc.call('session.project.set', { sessionId, projectId });
        try {
          await refreshGroups([res.previousProjectId ?? fromProjectId, res.projectId, fromProjectId]);
        } catch (err) {
          return { ok: true, text: `Moved to ${targetName}, but refreshing the sidebar failed: ${errorText(err)}`, projectId: res.projectId };
        }
        const n = res.sessionIds.length;
        const extra = n > 1 ? ` (${n} linked sessions of this conversation)` : '';
        return {
          ok: true,
          text: projectId === null ? `Removed from project${extra}` : `Moved to ${targetName}${extra}`,
          projectId: res.projectId,
        };
      } catch (err) {
        const made = madeProject ? ` (the folder is now the project "${madeProject}")` : '';
        return { ok: false, text: `Move failed, the conversation stayed where it was${made}: ${errorText(err)}` };
      } finally {
        setMoving((m) => {
          const next = new Set(m);
          next.delete(key);
          return next;
        });
      }
    },
    [rpc, projectForFolder, refreshGroups],
  );

  const conversations = useMemo(() => {
    const all = [...groups.values()].flatMap((g) => g.conversations);
    if (linked && !all.some((c) => c.key === linked.key)) all.push(linked);
    return all;
  }, [groups, linked]);

  return useMemo(
    () => ({
      projects,
      conversations,
      groups,
      loadMore,
      ensureListed,
      discovered,
      load,
      loadError,
      moving,
      reloadAll,
      refreshGroups,
      createProject,
      renameProject,
      archiveProject,
      projectForFolder,
      addFolder,
      moveConversation,
    }),
    [
      projects,
      conversations,
      groups,
      loadMore,
      ensureListed,
      discovered,
      load,
      loadError,
      moving,
      reloadAll,
      refreshGroups,
      createProject,
      renameProject,
      archiveProject,
      projectForFolder,
      addFolder,
      moveConversation,
    ],
  );
}
