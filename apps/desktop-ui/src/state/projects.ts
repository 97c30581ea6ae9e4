/**
 * Sidebar state: projects (incl. archived), all listed sessions, discovered folders, and the
 * actions that change them. Nothing here is optimistic: a move calls `session.project.set` and only
 * after the gateway answers are the source and target groups re-listed; on failure the loaded state
 * is left exactly as it was and the error is returned to the caller to show. Refreshes also follow
 * gateway events (projects.changed / sessions.changed).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { mergeGroupRefresh, sortProjects } from '../lib/grouping';
import { baseName } from '../lib/format';
import type { DiscoveredFolder, Project, Session } from '../types';
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

const LIST_LIMIT = 1000;

export interface ProjectsApi {
  projects: Project[];
  sessions: Session[];
  discovered: DiscoveredFolder[];
  load: LoadState;
  loadError: string | null;
  /** Conversation keys (root ids) with a move in flight. */
  moving: ReadonlySet<string>;
  reloadAll: () => Promise<void>;
  refreshGroups: (projectIds: Array<string | null>) => Promise<void>;
  createProject: (name: string, folder?: string) => Promise<Project>;
  renameProject: (projectId: string, name: string) => Promise<Project>;
  archiveProject: (projectId: string, archived: boolean) => Promise<Project>;
  projectForFolder: (path: string) => Promise<Project>;
  addFolder: (projectId: string, path: string) => Promise<Project>;
  moveConversation: (conversationKey: string, sessionId: string, fromProjectId: string | null, target: MoveTarget) => Promise<MoveOutcome>;
}

export function useProjects(): ProjectsApi {
  const { rpc } = useRpc();
  const [projects, setProjects] = useState<Project[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
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

  const loadSessions = useCallback(async () => {
    const { sessions: list } = await rpc.call('session.list', { limit: LIST_LIMIT });
    setSessions(list);
  }, [rpc]);

  const reloadAll = useCallback(async () => {
    try {
      await Promise.all([loadProjects(), loadSessions(), loadDiscovered()]);
      setLoad('ready');
      setLoadError(null);
    } catch (err) {
      setLoad('error');
      setLoadError(errorText(err));
    }
  }, [loadProjects, loadSessions, loadDiscovered]);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  const refreshGroups = useCallback(
    async (projectIds: Array<string | null>) => {
      const unique = [...new Set(projectIds)];
      const answers = await Promise.all(
        unique.map(async (projectId) => ({ projectId, list: (await rpc.call('session.list', { projectId, limit: LIST_LIMIT })).sessions })),
      );
      setSessions((cur) => answers.reduce((acc, a) => mergeGroupRefresh(acc, a.projectId, a.list), cur));
      await Promise.all([loadProjects(), loadDiscovered()]);
    },
    [rpc, loadProjects, loadDiscovered],
  );

  useGatewayEvent(['projects.changed'], () => {
    void loadProjects().catch(() => undefined);
    void loadDiscovered();
  });
  useGatewayEvent(['sessions.changed'], () => {
    void loadSessions().catch(() => undefined);
    void loadProjects().catch(() => undefined);
    void loadDiscovered();
  });
  // New messages change a row's message count and last activity (a chat turn stores several).
  useGatewayEvent(['messages.changed'], () => void loadSessions().catch(() => undefined), 700);

  const createProject = useCallback(
    async (name: string, folder?: string) => {
      const p = await rpc.call('projects.create', folder ? { name, folders: [folder] } : { name });
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
    async (path: string) => {
      const { project } = await rpc.call('projects.for_folder', { path, name: baseName(path) });
      await loadProjects();
      void loadDiscovered();
      return project;
    },
    [rpc, loadProjects, loadDiscovered],
  );

  const addFolder = useCallback(
    async (projectId: string, path: string) => {
      const p = await rpc.call('projects.folders.add', { projectId, path });
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

  return useMemo(
    () => ({
      projects,
      sessions,
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
      sessions,
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
