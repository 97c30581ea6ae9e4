/**
 * The conversation pane: header with the stored project (read from the DB on resume), cwd and git
 * metadata, "Move…" and "Change directory…" actions; the message list (each message addressable
 * by session + message id, tool calls and results as cards) with what the model is streaming at its
 * end; scrolling to and highlighting a linked message; the chat panel; and the composer — "Send to
 * model" (`chat.send`) when a model is configured, else the plain "Add message" (`session.append`);
 * typing `/compress` runs the compress action instead of sending. Also renders drafts: a
 * not-yet-saved conversation that remembers the project it was started in until its first message
 * is saved.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { callsById, isActive, isCompressCommand, liveText, type ChatRun } from '../lib/chat';
import { formatDate, isoOf, shortPath } from '../lib/format';
import { messageDomId, type Route } from '../lib/links';
import { projectName, type Conversation } from '../lib/grouping';
import type { ChatApi } from '../state/chat';
import type { ConversationApi, Draft } from '../state/conversation';
import type { ChatToolEvent, Project } from '@recall/rpc-contract';
import { ChatLive, ChatPanel, chatUsable } from './ChatPanel';
import { Composer } from './Composer';
import { MessageItem } from './MessageItem';

export interface ConversationViewProps {
  route: Extract<Route, { view: 'session' }> | null;
  draft: Draft | null;
  conv: ConversationApi;
  projects: Project[];
  /** The logical conversation the open session belongs to, when the sidebar knows it. */
  logical: Conversation | null;
  moving: boolean;
  onMoveMenu: (opener: HTMLElement) => void;
  onChangeCwd: () => void;
  onAgent: () => void;
  onSaveDraft: (text: string) => Promise<void>;
  onDiscardDraft: () => void;
  chat: ChatApi;
  compressing: boolean;
  /** `/compress` of a stored conversation (button or typed). */
  onCompress: (sessionId: string) => Promise<void>;
  /** `chat.send` in a stored conversation. */
  onChatSend: (sessionId: string, text: string) => Promise<void>;
  /** A draft's first message sent to the model: save the draft, then `chat.send`. */
  onDraftChat: (text: string) => Promise<void>;
}

const BLOCKED_WHILE_ANSWERING = 'Answering… Stop it or wait for the answer to send more.';

export function ConversationView(props: ConversationViewProps) {
  const { route, draft, conv, projects } = props;
  if (draft) return <DraftView {...props} draft={draft} />;
  if (!route) return null;

  const s = conv.session;
  const { chat } = props;
  const run = chat.runOf(s?.id);
  // An earlier part (compressed, or the sidebar knows a later part): the conversation goes on there.
  const ended = !!s && (s.endReason === 'compression' || (!!props.logical && props.logical.head.id !== s.id));
  const usable = chatUsable(chat.status, ended);
  const blocked = isActive(run) ? BLOCKED_WHILE_ANSWERING : null;
  const append = async (t: string) => {
    if (s && isCompressCommand(t)) {
      if (ended) throw new Error('This part was already compressed; open the latest part to compress it.');
      return props.onCompress(s.id);
    }
    await conv.append(t);
  };
  const ask = async (t: string) => {
    if (!s) return;
    if (isCompressCommand(t)) return props.onCompress(s.id);
    await props.onChatSend(s.id, t);
  };
  return (
    <section className="conversation" aria-label="Conversation">
      {conv.status === 'loading' && <p className="status-text pad">Loading conversation…</p>}
      {conv.status === 'error' && (
        <div className="status-error pad" role="alert">
          <p>Could not open this conversation: {conv.error}</p>
          <button type="button" className="btn small" onClick={() => void conv.reload()}>
            Try again
          </button>
        </div>
      )}
      {s && conv.status !== 'error' && (
        <>
          <header className="conv-header">
            <div className="conv-header-main">
              <h1 className="conv-heading" title={s.title?.trim() || undefined}>{s.title?.trim() || 'Untitled conversation'}</h1>
              <div className="conv-header-actions">
                <button
                  type="button"
                  className="btn small"
                  aria-haspopup="menu"
                  disabled={props.moving}
                  onClick={(e) => props.onMoveMenu(e.currentTarget)}
                >
                  {props.moving ? 'Moving…' : 'Move…'}
                </button>
                <button type="button" className="btn small" onClick={props.onChangeCwd}>
                  Change directory…
                </button>
                <button type="button" className="btn small" onClick={props.onAgent}>
                  Use with an agent…
                </button>
              </div>
            </div>
            <dl className="meta">
              <div>
                <dt>Project</dt>
                <dd>
                  <span className={`badge${s.projectId ? '' : ' muted'}`} data-testid="conversation-project">
                    {projectName(projects, s.projectId)}
                  </span>
                </dd>
              </div>
              <div>
                <dt>Directory</dt>
                <dd className="mono" title={s.cwd ?? ''} data-testid="conversation-cwd">
                  {s.cwd ? shortPath(s.cwd, 3) : '—'}
                  {s.gitBranch && <span className="tag"> {s.gitBranch}</span>}
                </dd>
              </div>
              <div>
                <dt>Started</dt>
                <dd>
                  <time dateTime={isoOf(s.startedAt)}>{formatDate(s.startedAt)}</time>
                </dd>
              </div>
            </dl>
            <LineageNote sessionId={s.id} parentSessionId={s.parentSessionId} lineage={s.lineage} logical={props.logical} />
          </header>
          <MessageList route={route} conv={conv} run={run} toolsByMessage={chat.runs.toolsByMessage} />
          <ChatPanel
            status={chat.status}
            statusError={chat.statusError}
            session={s}
            ended={ended}
            run={run}
            compressing={props.compressing}
            onCancel={() => void chat.cancel(s.id).catch(() => undefined)}
            onCompress={() => void props.onCompress(s.id)}
            onSendAgain={(content) => void props.onChatSend(s.id, content).catch(() => undefined)}
            onDismiss={() => chat.dismiss(s.id)}
          />
          {usable ? (
            <Composer
              placeholder="Ask the model… (or /compress to continue in a fresh context)"
              submitLabel="Send to model"
              onSubmit={ask}
              secondary={{ label: 'Add message', onSubmit: append }}
              blocked={blocked}
              hint="Ctrl+Enter sends to the model"
            />
          ) : (
            <Composer placeholder="Add a message to this conversation…" submitLabel="Add message" onSubmit={append} blocked={blocked} />
          )}
        </>
      )}
    </section>
  );
}

function LineageNote({
  sessionId,
  parentSessionId,
  lineage,
  logical,
}: {
  sessionId: string;
  parentSessionId: string | null;
  lineage: string;
  logical: Conversation | null;
}) {
  const notes: ReactNode[] = [];
  if (logical && logical.head.id !== sessionId) {
    notes.push(
      <span key="newer">
        This is an earlier, compressed part of the conversation. <a href={`#/s/${encodeURIComponent(logical.head.id)}`}>Open the latest part</a>.
      </span>,
    );
  }
  if (parentSessionId && lineage === 'compression') {
    notes.push(
      <span key="older">
        Continues an earlier part. <a href={`#/s/${encodeURIComponent(parentSessionId)}`}>Open the earlier part</a>.
      </span>,
    );
  }
  if (parentSessionId && (lineage === 'branch' || lineage === 'reset')) {
    notes.push(
      <span key="branch">
        Started as a {lineage} of <a href={`#/s/${encodeURIComponent(parentSessionId)}`}>another conversation</a>; it moves independently.
      </span>,
    );
  }
  return notes.length ? <p className="lineage-note">{notes}</p> : null;
}

function MessageList({
  route,
  conv,
  run,
  toolsByMessage,
}: {
  route: Extract<Route, { view: 'session' }>;
  conv: ConversationApi;
  run: ChatRun | null;
  toolsByMessage: Record<number, ChatToolEvent>;
}) {
  const [highlighted, setHighlighted] = useState<number | null>(null);
  const [missing, setMissing] = useState<number | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const calls = useMemo(() => callsById(conv.messages), [conv.messages]);
  const storedIds = useMemo(() => new Set(conv.messages.map((m) => m.id)), [conv.messages]);
  const lastId = conv.messages.length ? conv.messages[conv.messages.length - 1]!.id : 0;
  const lastSeen = useRef(0);
  const target = route.messageId;
  const ready = conv.status === 'ready' && conv.session?.id === route.sessionId;

  // Scroll to and highlight a linked message once its page is loaded (again on every re-route).
  // It is missing only when the gateway said so for a page read around it.
  useEffect(() => {
    if (!ready) return;
    if (target === undefined) {
      setMissing(null);
      return;
    }
    const el = document.getElementById(messageDomId(target));
    if (!el || el.dataset.sessionId !== route.sessionId) {
      if (conv.around?.messageId === target && !conv.around.visible) setMissing(target);
      return;
    }
    setMissing(null);
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
    setHighlighted(target);
    const t = setTimeout(() => setHighlighted(null), 4000);
    return () => clearTimeout(t);
  }, [ready, target, route, conv.around, storedIds]);

  // Without a target, keep the newest message in view when one is added at the end (not when an
  // older page is put on top).
  useEffect(() => {
    if (!ready) return;
    if (target === undefined && !conv.hasNewer && lastId > lastSeen.current) endRef.current?.scrollIntoView({ block: 'end' });
    lastSeen.current = lastId;
  }, [ready, lastId, target, conv.hasNewer]);

  // While an answer streams in, follow it — unless the reader scrolled up.
  const streamed = liveText(run).length + (run?.tools.length ?? 0);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || streamed === 0) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 160) endRef.current?.scrollIntoView({ block: 'end' });
  }, [streamed]);

  /** Older messages go on top without moving what the reader is looking at. */
  const loadOlder = async () => {
    const el = scrollRef.current;
    const before = el ? el.scrollHeight - el.scrollTop : 0;
    await conv.loadOlder();
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - before;
    });
  };

  const total = conv.session?.messageCount ?? 0;
  return (
    <div className="messages-scroll" tabIndex={-1} ref={scrollRef}>
      {missing !== null && (
        <p className="status-warn" role="status">
          Message #{missing} is not in this conversation (it may have been deleted or rewound).
        </p>
      )}
      {ready && conv.messages.length === 0 && <p className="status-text pad">No messages yet.</p>}
      {ready && conv.hasOlder && (
        <div className="page-more">
          <button type="button" className="btn small" disabled={conv.paging !== null} onClick={() => void loadOlder()} data-testid="load-older">
            {conv.paging === 'older' ? 'Loading earlier messages…' : 'Show earlier messages'}
          </button>
          <span className="page-count">
            {conv.messages.length.toLocaleString()} of {total.toLocaleString()} messages shown
          </span>
        </div>
      )}
      <ol className="messages" aria-label="Messages">
        {conv.messages.map((m) => (
          <MessageItem
            key={m.id}
            message={m}
            highlighted={highlighted === m.id}
            call={m.role === 'tool' && m.toolCallId ? calls.get(m.toolCallId) : undefined}
            live={m.role === 'tool' && toolsByMessage[m.id] !== undefined}
          />
        ))}
      </ol>
      {ready && conv.hasNewer && (
        <div className="page-more">
          <button type="button" className="btn small" disabled={conv.paging !== null} onClick={() => void conv.loadNewer()} data-testid="load-newer">
            {conv.paging === 'newer' ? 'Loading newer messages…' : 'Show newer messages'}
          </button>
        </div>
      )}
      {ready && !conv.hasNewer && <ChatLive run={run} storedIds={storedIds} currentSessionId={route.sessionId} />}
      <div ref={endRef} />
    </div>
  );
}

function DraftView({ draft, projects, onSaveDraft, onDiscardDraft, chat, onDraftChat }: ConversationViewProps & { draft: Draft }) {
  const name = projectName(projects, draft.projectId);
  const usable = chatUsable(chat.status, false);
  const draftKey = `${draft.projectId ?? ''}\n${draft.cwd ?? ''}`;
  const ask = async (t: string) => {
    if (isCompressCommand(t)) throw new Error('A new conversation has nothing to compress yet.');
    await onDraftChat(t);
  };
  return (
    <section className="conversation draft" aria-label="New conversation">
      <header className="conv-header">
        <div className="conv-header-main">
          <h1 className="conv-heading">New conversation</h1>
          <div className="conv-header-actions">
            <button type="button" className="btn small" onClick={onDiscardDraft}>
              Discard draft
            </button>
          </div>
        </div>
        <dl className="meta">
          <div>
            <dt>Project</dt>
            <dd>
              <span className={`badge${draft.projectId ? '' : ' muted'}`} data-testid="draft-project">
                {name}
              </span>
            </dd>
          </div>
          <div>
            <dt>Directory</dt>
            <dd className="mono">{draft.cwd ? shortPath(draft.cwd, 3) : '—'}</dd>
          </div>
        </dl>
      </header>
      <div className="messages-scroll">
        <div className="draft-note">
          <p>
            This draft is not saved yet. Your first message saves it{' '}
            {draft.projectId ? (
              <>
                in <strong>{name}</strong>, the project you started it in
              </>
            ) : (
              <>without a project (it will only recall its own history until you move it into one)</>
            )}
            .
          </p>
        </div>
      </div>
      <ChatPanel
        status={chat.status}
        statusError={chat.statusError}
        session={null}
        ended={false}
        run={null}
        compressing={false}
        onCancel={() => undefined}
        onCompress={() => undefined}
        onSendAgain={() => undefined}
        onDismiss={() => undefined}
      />
      {usable ? (
        <Composer
          placeholder="Write the first message…"
          submitLabel="Send to model"
          onSubmit={ask}
          secondary={{ label: 'Save conversation', onSubmit: onSaveDraft }}
          hint="Ctrl+Enter sends to the model"
          focusKey={draftKey}
        />
      ) : (
        <Composer placeholder="Write the first message…" submitLabel="Save conversation" onSubmit={onSaveDraft} focusKey={draftKey} />
      )}
    </section>
  );
}
