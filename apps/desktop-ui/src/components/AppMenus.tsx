/**
 * The page's two context menus, at most one open at a time: a conversation's (move to a project or
 * folder, open, working directory, agent set-up, rename, export, delete) and a project's (new
 * conversation, rename, add folder, agent set-up, archive, export, delete). Items that need a form
 * open a dialog (AppDialogs) that remembers the menu's opener, so the focus can return there.
 */
import type { DiscoveredFolder, Project } from '@recall/rpc-contract';
import type { AgentTarget } from './AgentDialog';
import type { DialogState } from './AppDialogs';
import type { DataTarget } from './DataDialogs';
import { Menu } from './Menu';
import { MoveMenu } from './MoveMenu';
import type { Conversation } from '../lib/grouping';
import type { MoveTarget } from '../state/projects';

export type MenuState =
  | { kind: 'move'; conversation: Conversation; x: number; y: number; opener: HTMLElement | null }
  | { kind: 'project'; project: Project; x: number; y: number; opener: HTMLElement | null };

export interface AppMenusProps {
  menu: MenuState | null;
  onClose: () => void;
  projects: Project[];
  discovered: DiscoveredFolder[];
  openSessionId: string | null;
  openDialog: (d: DialogState) => void;
  agentFor: (c: Conversation) => AgentTarget;
  projectTarget: (p: Project) => DataTarget;
  onMove: (c: Conversation, target: MoveTarget) => void;
  onOpen: (c: Conversation) => void;
  onNewConversation: (projectId: string) => void;
  onArchive: (p: Project) => void;
}

export function AppMenus({ menu, onClose, projects, discovered, openSessionId, openDialog, agentFor, projectTarget, onMove, onOpen, onNewConversation, onArchive }: AppMenusProps) {
  if (menu?.kind === 'move') {
    const c = menu.conversation;
    return (
      <MoveMenu
        conversation={c}
        projects={projects}
        discovered={discovered}
        x={menu.x}
        y={menu.y}
        returnFocus={menu.opener}
        onClose={onClose}
        onMove={(t) => onMove(c, t)}
        {...(openSessionId && c.members.some((m) => m.id === openSessionId) ? {} : { onOpen: () => onOpen(c) })}
        onChangeCwd={() => openDialog({ kind: 'cwd', conversation: c })}
        onAgent={() => openDialog({ kind: 'agent', target: agentFor(c) })}
        onRename={() => openDialog({ kind: 'renameConversation', conversation: c, opener: menu.opener })}
        onExport={() => openDialog({ kind: 'export', target: { kind: 'conversation', conversation: c }, opener: menu.opener })}
        onDelete={() => openDialog({ kind: 'delete', target: { kind: 'conversation', conversation: c }, opener: menu.opener })}
      />
    );
  }
  if (menu?.kind === 'project') {
    const p = menu.project;
    return (
      <Menu
        label={`Actions for project ${p.name}`}
        heading={p.name}
        x={menu.x}
        y={menu.y}
        returnFocus={menu.opener}
        onClose={onClose}
        sections={[
          {
            items: [
              { key: 'new', label: 'New conversation here', onSelect: () => onNewConversation(p.id) },
              { key: 'rename', label: 'Rename…', onSelect: () => openDialog({ kind: 'renameProject', project: p }) },
              { key: 'folder', label: 'Add folder…', hint: 'metadata only', onSelect: () => openDialog({ kind: 'addFolder', project: p }) },
              { key: 'agent', label: 'Use with an agent…', hint: 'MCP set-up', onSelect: () => openDialog({ kind: 'agent', target: { project: p } }) },
              { key: 'archive', label: 'Archive', hint: 'keeps conversations', onSelect: () => onArchive(p) },
            ],
          },
          {
            items: [
              { key: 'export', label: 'Export…', hint: 'JSONL or Markdown', onSelect: () => openDialog({ kind: 'export', target: projectTarget(p), opener: menu.opener }) },
              { key: 'delete', label: 'Delete…', danger: true, onSelect: () => openDialog({ kind: 'delete', target: projectTarget(p), opener: menu.opener }) },
            ],
          },
        ]}
      />
    );
  }
  return null;
}
