/**
 * One conversation row of the sidebar: a button that opens it, a keyboard-reachable "Move…" button,
 * the context menu (right click, the ContextMenu key or Shift+F10), and a drag handle for dropping
 * it on another project. Shows "Moving…" while a move is in flight; the open conversation's row
 * scrolls itself into view.
 */
import { useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { formatRelative, isoOf, messageCountText, shortPath } from '../lib/format';
import type { Conversation } from '../lib/grouping';
import { setConversationDrag } from '../state/dnd';

export interface ConversationItemProps {
  conversation: Conversation;
  active: boolean;
  moving: boolean;
  showCwd: boolean;
  onOpen: (c: Conversation) => void;
  onMenu: (c: Conversation, x: number, y: number, opener: HTMLElement) => void;
}

export function ConversationItem({ conversation: c, active, moving, showCwd, onOpen, onMenu }: ConversationItemProps) {
  const row = useRef<HTMLLIElement>(null);
  // The open conversation is brought into view in the sidebar (also when it was opened by link).
  // Centred when it is out of view; a row already fully visible (e.g. just clicked) does not move.
  useEffect(() => {
    const el = row.current;
    if (!active || !el) return;
    const box = el.getBoundingClientRect();
    const pane = el.closest('.sidebar')?.getBoundingClientRect() ?? { top: 0, bottom: window.innerHeight };
    if (box.top < pane.top || box.bottom > Math.min(pane.bottom, window.innerHeight)) el.scrollIntoView({ block: 'center' });
  }, [active]);
  const count = messageCountText(c.members, c.head.id);
  const openMenuAt = (el: HTMLElement, x?: number, y?: number) => {
    const r = el.getBoundingClientRect();
    onMenu(c, x ?? r.left + 12, y ?? r.bottom, el);
  };
  const onContextMenu = (e: MouseEvent<HTMLButtonElement>) => {
    e.preventDefault();
    onMenu(c, e.clientX, e.clientY, e.currentTarget);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
      e.preventDefault();
      openMenuAt(e.currentTarget);
    }
  };
  return (
    <li
      ref={row}
      className={`conv${active ? ' active' : ''}${moving ? ' moving' : ''}`}
      draggable={!moving}
      data-session-id={c.head.id}
      data-conversation-key={c.key}
      onDragStart={(e) => setConversationDrag(e.dataTransfer, c.key, c.title)}
    >
      <button
        type="button"
        className="conv-open"
        aria-current={active ? 'page' : undefined}
        onClick={() => onOpen(c)}
        onContextMenu={onContextMenu}
        onKeyDown={onKeyDown}
        title={c.title}
      >
        <span className="conv-title">{c.title}</span>
        <span className="conv-meta">
          {moving ? (
            <span className="status-text">Moving…</span>
          ) : (
            <>
              <time className="rel-time" dateTime={isoOf(c.lastActivity)}>
                {formatRelative(c.lastActivity)}
              </time>
              {count && (
                <span title={count.long} data-testid="conv-count" data-long={count.long}>
                  <span aria-hidden="true">{` · ${count.short}`}</span>
                  <span className="sr-only">, {count.long}</span>
                </span>
              )}
              {showCwd && c.head.cwd && <span className="conv-cwd"> · {shortPath(c.head.cwd, 1)}</span>}
            </>
          )}
        </span>
      </button>
      <button
        type="button"
        className="conv-more"
        aria-haspopup="menu"
        aria-label={`Move “${c.title}”…`}
        disabled={moving}
        onClick={(e) => openMenuAt(e.currentTarget)}
      >
        Move…
      </button>
    </li>
  );
}
