/**
 * The sidebar: header actions (new project; "New chat" in the project of what is open, else
 * without a project), the project
 * groups and the "No project" group built from stored project ids, discovered-folder suggestions,
 * and archived projects (collapsed, with "Unarchive"). Shows load status as text.
 */
import { useMemo, useState } from 'react';
import { groupByProject, type Conversation } from '../lib/grouping';
import type { ProjectsApi } from '../state/projects';
import type { Project } from '@recall/rpc-contract';
import { DiscoveredFolders } from './DiscoveredFolders';
import { ProjectGroup } from './ProjectGroup';

export interface SidebarProps {
  api: ProjectsApi;
  conversations: Conversation[];
  activeSessionId: string | null;
  busyFolder: string | null;
  onOpen: (c: Conversation) => void;
  onMenu: (c: Conversation, x: number, y: number, opener: HTMLElement) => void;
  onNew: (projectId: string | null) => void;
  onStartInFolder: (path: string) => void;
  onMakeProjectFromFolder: (path: string) => void;
  onCreateProject: () => void;
  onProjectMenu: (p: Project, x: number, y: number, opener: HTMLElement) => void;
  /** Search this whole project (no conversation needed). */
  onSearchProject: (projectId: string) => void;
  onUnarchive: (p: Project) => void;
  onDropOnProject: (key: string, projectId: string | null) => void;
  onDropOnFolder: (key: string, path: string) => void;
  onLoadMore: (projectId: string | null) => void;
  /** The project of what is open (a conversation or a draft): "New chat" starts there. */
  currentProject: Project | null;
}

export function Sidebar(props: SidebarProps) {
  const { api, conversations } = props;
  const [showArchived, setShowArchived] = useState(false);
  const active = useMemo(() => api.projects.filter((p) => !p.archived), [api.projects]);
  const archived = useMemo(() => api.projects.filter((p) => p.archived), [api.projects]);
  const groups = useMemo(() => {
    const all = groupByProject(api.projects, conversations);
    const archivedIds = new Set(archived.map((p) => p.id));
    return { shown: all.filter((g) => !archivedIds.has(g.key)), archived: all.filter((g) => archivedIds.has(g.key)) };
  }, [api.projects, archived, conversations]);
  // Shared by active and archived groups; archived ones add onUnarchive.
  const groupProps = {
    activeSessionId: props.activeSessionId,
    moving: api.moving,
    onOpen: props.onOpen,
    onMenu: props.onMenu,
    onNew: props.onNew,
    onProjectMenu: props.onProjectMenu,
    onSearchProject: props.onSearchProject,
    onDropConversation: props.onDropOnProject,
    onLoadMore: props.onLoadMore,
  };

  return (
    <nav className="sidebar-inner" aria-label="Projects and conversations">
      <div className="sidebar-head">
        <h2 className="sidebar-title">Projects</h2>
        <div className="sidebar-actions">
          <button type="button" className="btn small" onClick={props.onCreateProject}>
            New project
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => props.onNew(props.currentProject?.id ?? null)}
            title={props.currentProject ? `New conversation in ${props.currentProject.name}` : 'New conversation without a project'}
            data-testid="new-chat"
          >
            New chat
          </button>
        </div>
      </div>

      {api.load === 'loading' && <p className="status-text pad">Loading projects…</p>}
      {api.load === 'error' && (
        <div className="status-error pad" role="alert">
          <p>Could not load projects: {api.loadError}</p>
          <button type="button" className="btn small" onClick={() => void api.reloadAll()}>
            Try again
          </button>
        </div>
      )}

      {api.load === 'ready' && (
        <>
          {active.length === 0 && (
            <p className="group-note pad">No projects yet. Create one, or make one from a suggested folder below.</p>
          )}
          {groups.shown.map((g) => (
            <ProjectGroup key={g.key} group={g} pages={api.groups.get(g.key)} {...groupProps} />
          ))}
          <DiscoveredFolders
            folders={api.discovered}
            busyPath={props.busyFolder}
            onStartHere={props.onStartInFolder}
            onMakeProject={props.onMakeProjectFromFolder}
            onDropConversation={props.onDropOnFolder}
          />
          {archived.length > 0 && (
            <section className="archived" aria-label="Archived projects">
              <button type="button" className="section-toggle" aria-expanded={showArchived} onClick={() => setShowArchived((v) => !v)}>
                <span className="chev" aria-hidden="true">
                  {showArchived ? '▾' : '▸'}
                </span>
                Archived projects <span className="count">{archived.length}</span>
              </button>
              {showArchived && (
                <>
                  <p className="group-note">Archived projects keep their conversations; they take no new ones.</p>
                  {groups.archived.map((g) => (
                    <ProjectGroup key={g.key} group={g} pages={api.groups.get(g.key)} {...groupProps} onUnarchive={props.onUnarchive} />
                  ))}
                </>
              )}
            </section>
          )}
        </>
      )}
    </nav>
  );
}
