/**
 * One message of a conversation, addressable by session + message id: `id="m-<messageId>"`,
 * `data-session-id`, `data-message-id`. Content is safe Markdown (MessageBody: never raw HTML,
 * recall:// links open in the app, very long messages start collapsed). An assistant message that called tools shows its calls compactly; a tool
 * message (the stored session_search result) is a ToolCard — collapsed unless it happened live.
 */
import { memo, type ReactNode } from 'react';
import { formatArgs, parseToolCalls, toolViewFromMessage, type ToolCallInfo } from '../lib/chat';
import { formatDate } from '../lib/format';
import { linkify, messageDomId } from '../lib/links';
import type { Message } from '@recall/rpc-contract';
import { MessageBody } from './MessageBody';
import { ToolCard } from './ToolCard';

export interface MessageItemProps {
  message: Message;
  highlighted: boolean;
  /** Tool messages: the call (from the assistant message's toolCalls) this result answers. */
  call?: ToolCallInfo | undefined;
  /** Tool messages: the call happened live on this page (the card starts open). */
  live?: boolean;
}

const ROLE_LABEL: Record<string, string> = { user: 'You', assistant: 'Assistant', system: 'System', tool: 'Tool' };

export function LinkedText({ text }: { text: string }): ReactNode {
  return linkify(text).map((part, i) =>
    part.kind === 'text' ? (
      <span key={i}>{part.text}</span>
    ) : (
      <a key={i} href={part.href}>
        {part.text}
      </a>
    ),
  );
}

export const MessageItem = memo(function MessageItem({ message: m, highlighted, call, live = false }: MessageItemProps) {
  const calls = m.role === 'assistant' ? parseToolCalls(m.toolCalls) : [];
  const isTool = m.role === 'tool';
  return (
    <li
      id={messageDomId(m.id)}
      className={`msg role-${m.role}${calls.length ? ' has-calls' : ''}${highlighted ? ' highlight' : ''}${m.visibility === 'compacted' ? ' compacted' : ''}`}
      data-session-id={m.sessionId}
      data-message-id={m.id}
      tabIndex={-1}
      aria-label={`${ROLE_LABEL[m.role] ?? m.role} message ${m.id}`}
    >
      <div className="msg-head">
        <span className="msg-role">{ROLE_LABEL[m.role] ?? m.role}</span>
        {m.toolName && !isTool && <span className="msg-tool">{m.toolName}</span>}
        {isTool && <span className="msg-tool">result</span>}
        {calls.length > 0 && <span className="msg-tool">{calls.length === 1 ? 'tool call' : `${calls.length} tool calls`}</span>}
        {m.visibility === 'compacted' && <span className="tag">compacted</span>}
        <time className="msg-time" dateTime={new Date(m.createdAt).toISOString()}>
          {formatDate(m.createdAt)}
        </time>
        <a className="msg-anchor" href={`#/s/${encodeURIComponent(m.sessionId)}/m/${m.id}`} aria-label={`Link to message ${m.id}`}>
          #{m.id}
        </a>
      </div>
      {isTool ? (
        <ToolCard view={toolViewFromMessage(m, call)} defaultOpen={live} currentSessionId={m.sessionId} toolCallId={m.toolCallId} />
      ) : (
        <>
          {(m.content || calls.length === 0) && (
            <MessageBody text={m.content} />
          )}
          {calls.length > 0 && (
            <ul className="calls" aria-label="Tool calls">
              {calls.map((c, i) => (
                <li key={c.id || i} className="call" data-tool-call-id={c.id || undefined}>
                  <code>{c.name}</code> <span className="call-args">{formatArgs(c.arguments)}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </li>
  );
});
