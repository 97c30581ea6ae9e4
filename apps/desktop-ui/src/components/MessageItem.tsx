/**
 * One message of a conversation, addressable by session + message id: `id="m-<messageId>"`,
 * `data-session-id`, `data-message-id`. Content is plain text (never HTML); recall:// links in it
 * become in-app links. Tool messages are shown compactly with their tool name.
 */
import { memo } from 'react';
import { formatDate } from '../lib/format';
import { linkify, messageDomId } from '../lib/links';
import type { Message } from '../types';

export interface MessageItemProps {
  message: Message;
  highlighted: boolean;
}

const ROLE_LABEL: Record<string, string> = { user: 'You', assistant: 'Assistant', system: 'System', tool: 'Tool' };

export const MessageItem = memo(function MessageItem({ message: m, highlighted }: MessageItemProps) {
  return (
    <li
      id={messageDomId(m.id)}
      className={`msg role-${m.role}${highlighted ? ' highlight' : ''}${m.visibility === 'compacted' ? ' compacted' : ''}`}
      data-session-id={m.sessionId}
      data-message-id={m.id}
      tabIndex={-1}
      aria-label={`${ROLE_LABEL[m.role] ?? m.role} message ${m.id}`}
    >
      <div className="msg-head">
        <span className="msg-role">{ROLE_LABEL[m.role] ?? m.role}</span>
        {m.toolName && <span className="msg-tool">{m.toolName}</span>}
        {m.visibility === 'compacted' && <span className="tag">compacted</span>}
        <time className="msg-time" dateTime={new Date(m.createdAt).toISOString()}>
          {formatDate(m.createdAt)}
        </time>
        <a className="msg-anchor" href={`#/s/${encodeURIComponent(m.sessionId)}/m/${m.id}`} aria-label={`Link to message ${m.id}`}>
          #{m.id}
        </a>
      </div>
      <div className="msg-body">
        {linkify(m.content).map((part, i) =>
          part.kind === 'text' ? (
            <span key={i}>{part.text}</span>
          ) : (
            <a key={i} href={part.href}>
              {part.text}
            </a>
          ),
        )}
      </div>
    </li>
  );
});
