/**
 * The "Move…" / context menu of a conversation: move to another explicit project, remove from its
 * project ("No project"), or turn a discovered folder into a project and move there. Changing the
 * working directory is listed as a separate action that never changes the project; "Use with an
 * agent…" shows the MCP set-up. Projects show their primary folder, so same-named ones differ.
 */
import { orderedFolders, type Conversation } from '../lib/grouping';
import { shortPath } from '../lib/format';
import type { DiscoveredFolder, Project } from '@recall/rpc-contract';
import type { MoveTarget } from '../state/projects';
import { Menu, type MenuSection } from './Menu';

export interface MoveMenuProps {
  conversation: Conversation;
  projects: Project[];
  discovered: DiscoveredFolder[];
  x: number;
  y: number;
  returnFocus: HTMLElement | null;
  onMove: (target: MoveTarget) => void;
  onOpen?: () => void;
  onChangeCwd: () => void;
  onAgent: () => void;
  onRename?: () => void;
  onExport?: () => void;
  onDelete?: () => void;
  onClose: () => void;
}

export function MoveMenu({ conversation, projects, discovered, x, y, returnFocus, onMove, onOpen, onChangeCwd, onAgent, onRename, onExport, onDelete, onClose }: MoveMenuProps) {
  const current = conversation.projectId;
  const active = projects.filter((p) => !p.archived);
  const sections: MenuSection[] = [
    {
      title: 'Move to project',
      items: active.map((p) => ({
        key: `p:${p.id}`,
        label: p.name,
        // The folder tells two projects of the same name apart.
        ...(orderedFolders(p)[0] ? { hint: shortPath(orderedFolders(p)[0]!, 2) } : {}),
        ...(p.id === current ? { hint: 'current', current: true, disabled: true } : {}),
        onSelect: () => onMove({ kind: 'project', projectId: p.id }),
      })),
    },
    {
      items: [
        {
          key: 'none',
          label: current === null ? 'No project' : 'Remove from project',
          hint: current === null ? 'current' : 'No project',
          current: current === null,
          disabled: current === null,
          onSelect: () => onMove({ kind: 'none' }),
        },
      ],
    },
    {
      title: 'New project from folder',
      items: discovered.slice(0, 6).map((f) => ({
        key: `f:${f.path}`,
        label: shortPath(f.path, 2),
        hint: 'creates project',
        onSelect: () => onMove({ kind: 'folder', path: f.path }),
      })),
    },
    {
      title: 'Other actions',
      items: [
        ...(onOpen ? [{ key: 'open', label: 'Open', onSelect: onOpen }] : []),
        { key: 'cwd', label: 'Change working directory…', hint: 'keeps project', onSelect: onChangeCwd },
        { key: 'agent', label: 'Use with an agent…', hint: 'MCP set-up', onSelect: onAgent },
        ...(onRename ? [{ key: 'rename', label: 'Rename…', onSelect: onRename }] : []),
        ...(onExport ? [{ key: 'export', label: 'Export…', hint: 'JSONL or Markdown', onSelect: onExport }] : []),
        ...(onDelete ? [{ key: 'delete', label: 'Delete…', danger: true, onSelect: onDelete }] : []),
      ],
    },
  ];
  return (
    <Menu
      label={`Actions for ${conversation.title}`}
      heading={`Move “${conversation.title}”`}
      sections={sections}
      x={x}
      y={y}
      returnFocus={returnFocus}
      onClose={onClose}
    />
  );
}
