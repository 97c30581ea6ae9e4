/**
 * One group of the sidebar: an explicit project (name, folders as metadata, its conversations by
 * stored project_id) or the "No project" group. The whole group is a drop target; its header has
 * "new conversation here" and a project actions menu (rename, add folder, archive). An archived
 * project keeps its conversations; its group starts collapsed and offers "Unarchive" instead.
 */
import { useState } from 'react';
import { shortPath } from '../lib/format';
import { orderedFolders, type Conversation, type ProjectGroupModel } from '../lib/grouping';
import type { GroupPages } from '../state/projects';
import type { Project } from '@recall/rpc-contract';
import { ConversationItem } from './ConversationItem';
import { DropZone } from './DropZone';
import { FolderIcon } from './FolderIcon';

export interface ProjectGroupProps {
  group: ProjectGroupModel;
  /** Paging state of this group (total and whether more pages exist). */
  pages?: GroupPages | undefined;
  onLoadMore: (projectId: string | null) => void;
  activeSessionId: string | null;
  moving: ReadonlySet<string>;
  onOpen: (c: Conversation) => void;
  onMenu: (c: Conversation, x: number, y: number, opener: HTMLElement) => void;
  onNew: (projectId: string | null) => void;
  onProjectMenu: (p: Project, x: number, y: number, opener: HTMLElement) => void;
  /** Search this whole project from its header. */
  onSearchProject?: (projectId: string) => void;
  onDropConversation: (key: string, projectId: string | null) => void;
  onUnarchive?: (p: Project) => void;
}

export function ProjectGroup({ group, pages, onLoadMore, activeSessionId, moving, onOpen, onMenu, onNew, onProjectMenu, onSearchProject, onDropConversation, onUnarchive }: ProjectGroupProps) {
  const p = group.project;
  const archived = p?.archived ?? false;
  const [collapsed, setCollapsed] = useState(archived);
  const isNone = group.key === '__none__';
  const projectId = isNone ? null : group.key;
  const name = p?.name ?? (isNone ? 'No project' : `Unknown project`);
  const folders = p ? orderedFolders(p) : [];
  const listId = `group-${group.key}`;
  // The group's size comes from the gateway: only a page of it may be loaded.
  const total = Math.max(pages?.total ?? 0, group.conversations.length);
  const more = pages?.nextCursor ? total - group.conversations.length : 0;
  return (
    <DropZone
      className={`group${isNone ? ' group-none' : ''}${archived ? ' group-archived' : ''}`}
      label={isNone ? 'No project' : `Project ${name}`}
      attrs={{ 'data-project-id': projectId ?? '' }}
      onDropConversation={(key) => onDropConversation(key, projectId)}
    >
      <div className="group-head">
        <button
          type="button"
          className="group-toggle"
          aria-expanded={!collapsed}
          aria-controls={listId}
          onClick={() => setCollapsed((v) => !v)}
        >
          <span className="chev" aria-hidden="true">
            {collapsed ? '▸' : '▾'}
          </span>
          {p?.color && <span className="swatch" style={{ background: p.color }} aria-hidden="true" />}
          <span className="group-name">{name}</span>
          <span className="count" aria-label={`${total} conversations`}>
            {total.toLocaleString()}
          </span>
        </button>
        {archived && p && onUnarchive && (
          <button type="button" className="link-btn" onClick={() => onUnarchive(p)} aria-label={`Unarchive ${name}`}>
            Unarchive
          </button>
        )}
        {!archived && (
          <button
            type="button"
            className="icon-btn"
            aria-label={isNone ? 'New conversation without a project' : `New conversation in ${name}`}
            title={isNone ? 'New conversation without a project' : `New conversation in ${name}`}
            onClick={() => onNew(projectId)}
          >
            +
          </button>
        )}
        {p && !archived && onSearchProject && (
          <button
            type="button"
            className="icon-btn search-project-btn"
            aria-label={`Search project ${name}`}
            title={`Search project ${name}`}
            onClick={() => onSearchProject(p.id)}
          >
            <svg viewBox="0 0 16 16" width="13" height="13" aria-hidden="true" focusable="false">
              <circle cx="6.5" cy="6.5" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
              <path d="M10 10l4 4" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            </svg>
          </button>
        )}
        {p && !archived && (
          <button
            type="button"
            className="icon-btn"
            aria-haspopup="menu"
            aria-label={`Actions for project ${name}`}
            title="Project actions"
            onClick={(e) => {
              const r = e.currentTarget.getBoundingClientRect();
              onProjectMenu(p, r.left, r.bottom, e.currentTarget);
            }}
          >
            ⋯
          </button>
        )}
      </div>
      {folders.length > 0 && (
        <p className="group-folders" title={folders.join('\n')}>
          <span className="sr-only">Folders: </span>
          {folders.map((f, i) => (
            <span key={f} className="folder-chip">
              {i === 0 ? '' : ' '}
              <FolderIcon /> {shortPath(f, 2)}
            </span>
          ))}
        </p>
      )}
      {isNone && !collapsed && <p className="group-note">Not a shared project: each can only recall its own history.</p>}
      {!p && !isNone && <p className="group-note">This project id is not in the project list ({group.key}).</p>}
      {!collapsed &&
        (group.conversations.length > 0 ? (
          <ul className="conv-list" id={listId}>
            {group.conversations.map((c) => (
              <ConversationItem
                key={c.key}
                conversation={c}
                active={activeSessionId !== null && c.members.some((m) => m.id === activeSessionId)}
                moving={moving.has(c.key)}
                showCwd={isNone}
                onOpen={onOpen}
                onMenu={onMenu}
              />
            ))}
            {more > 0 && (
              <li className="conv-page-more">
                <button type="button" className="link-btn" disabled={pages?.loadingMore} onClick={() => onLoadMore(projectId)}>
                  {pages?.loadingMore ? 'Loading…' : `Show more (${more.toLocaleString()} older)`}
                </button>
              </li>
            )}
          </ul>
        ) : (
          <p className="group-empty" id={listId}>
            {isNone ? 'No conversations without a project.' : 'No conversations yet. Start one with +, or drop one here.'}
          </p>
        ))}
    </DropZone>
  );
}
