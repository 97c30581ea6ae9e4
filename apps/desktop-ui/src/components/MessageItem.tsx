/**
 * One message of a conversation, addressable by session + message id: `id="m-<messageId>"`,
 * `data-session-id`, `data-message-id`. Content is safe Markdown (MessageBody: never raw HTML,
 * recall:// links open in the app, very long messages start collapsed). An assistant message that called tools shows its calls compactly; a tool
 * message is a ToolCard when it is Recall's own session_search result (collapsed unless it happened
 * live), else the tool's plain output (ToolOutput: imported shell/file tools). The lines an importer
 * wrote into the assistant text only to repeat a call (`Bash {"command":…}`) are not shown twice.
 * Messages carry no number: their ids count every message of the database ("#40" on a new
 * conversation's first message), so the head shows a plain link to the message instead.
 */
import { memo, type ReactNode } from 'react';
import { formatArgs, parseToolCalls, toolViewFromMessage, type ToolCallInfo } from '../lib/chat';
import { formatDate } from '../lib/format';
import { linkify, messageDomId } from '../lib/links';
import type { Message } from '@recall/rpc-contract';
import { commandOf, isSearchResult, textWithoutCallLines } from '../lib/toolOutput';
import { MessageBody } from './MessageBody';
import { ToolCard } from './ToolCard';
import { ToolOutput } from './ToolOutput';

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
  const toolName = m.toolName ?? call?.name ?? 'tool';
  const searchCard = isTool && isSearchResult(toolName, m.content);
  const text = calls.length > 0 ? textWithoutCallLines(m.content, calls) : m.content;
  return (
    <li
      id={messageDomId(m.id)}
      className={`msg role-${m.role}${calls.length ? ' has-calls' : ''}${highlighted ? ' highlight' : ''}${m.visibility === 'compacted' ? ' compacted' : ''}`}
      data-session-id={m.sessionId}
      data-message-id={m.id}
      tabIndex={-1}
      aria-label={`${ROLE_LABEL[m.role] ?? m.role} message`}
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
        <a className="msg-anchor" href={`#/s/${encodeURIComponent(m.sessionId)}/m/${m.id}`} aria-label="Link to this message" title="Link to this message">
          Link
        </a>
      </div>
      {searchCard ? (
        <ToolCard view={toolViewFromMessage(m, call)} defaultOpen={live} currentSessionId={m.sessionId} toolCallId={m.toolCallId} />
      ) : isTool ? (
        <ToolOutput name={toolName} content={m.content} call={call} toolCallId={m.toolCallId} />
      ) : (
        <>
          {(text || calls.length === 0) && <MessageBody text={text} />}
          {calls.length > 0 && (
            <ul className="calls" aria-label="Tool calls">
              {calls.map((c, i) => {
                const command = commandOf(c.arguments);
                return (
                  <li key={c.id || i} className="call" data-tool-call-id={c.id || undefined}>
                    <code>{c.name}</code>{' '}
                    {command !== null ? <code className="call-cmd">{command}</code> : <span className="call-args">{formatArgs(c.arguments)}</span>}
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </li>
  );
});
