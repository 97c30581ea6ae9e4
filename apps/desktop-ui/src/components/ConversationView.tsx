/**
 * The conversation pane: header with the stored project (read from the DB on resume), cwd and git
 * metadata, "Move…" and "Change directory…" actions; the message list (each message addressable
 * by session + message id); scrolling to and highlighting a linked message; the chat slot; and the
 * composer. Also renders drafts: a not-yet-saved conversation that remembers the project it was
 * started in until its first message is saved.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { formatDate, shortPath } from '../lib/format';
import { messageDomId, type Route } from '../lib/links';
import { projectName, type Conversation } from '../lib/grouping';
import type { ConversationApi, Draft } from '../state/conversation';
import type { Project } from '../types';
import { ChatPanel } from './ChatPanel';
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
  onSaveDraft: (text: string) => Promise<void>;
  onDiscardDraft: () => void;
}

export function ConversationView(props: ConversationViewProps) {
  const { route, draft, conv, projects } = props;
  if (draft) return <DraftView {...props} draft={draft} />;
  if (!route) return null;

  const s = conv.session;
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
              <h1 className="conv-heading">{s.title?.trim() || 'Untitled conversation'}</h1>
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
                <dd>{formatDate(s.startedAt)}</dd>
              </div>
            </dl>
            <LineageNote sessionId={s.id} parentSessionId={s.parentSessionId} lineage={s.lineage} logical={props.logical} />
          </header>
          <MessageList route={route} conv={conv} />
          <ChatPanel />
          <Composer placeholder="Add a message to this conversation…" submitLabel="Add message" onSubmit={async (t) => void (await conv.append(t))} />
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

function MessageList({ route, conv }: { route: Extract<Route, { view: 'session' }>; conv: ConversationApi }) {
  const [highlighted, setHighlighted] = useState<number | null>(null);
  const [missing, setMissing] = useState<number | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const lastCount = useRef(0);
  const target = route.messageId;
  const ready = conv.status === 'ready' && conv.session?.id === route.sessionId;

  // Scroll to and highlight a linked message once the session is loaded (again on every re-route).
  useEffect(() => {
    if (!ready) return;
    if (target === undefined) {
      setMissing(null);
      return;
    }
    const el = document.getElementById(messageDomId(target));
    if (!el || el.dataset.sessionId !== route.sessionId) {
      setMissing(target);
      return;
    }
    setMissing(null);
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
    setHighlighted(target);
    const t = setTimeout(() => setHighlighted(null), 4000);
    return () => clearTimeout(t);
  }, [ready, target, route]);

  // Without a target, keep the newest message in view when messages are added.
  useEffect(() => {
    if (!ready) return;
    const n = conv.messages.length;
    if (target === undefined && n > lastCount.current) endRef.current?.scrollIntoView({ block: 'end' });
    lastCount.current = n;
  }, [ready, conv.messages.length, target]);

  return (
    <div className="messages-scroll" tabIndex={-1}>
      {missing !== null && (
        <p className="status-warn" role="status">
          Message #{missing} is not in this conversation (it may have been deleted or rewound).
        </p>
      )}
      {ready && conv.messages.length === 0 && <p className="status-text pad">No messages yet.</p>}
      <ol className="messages" aria-label="Messages">
        {conv.messages.map((m) => (
          <MessageItem key={m.id} message={m} highlighted={highlighted === m.id} />
        ))}
      </ol>
      <div ref={endRef} />
    </div>
  );
}

function DraftView({ draft, projects, onSaveDraft, onDiscardDraft }: ConversationViewProps & { draft: Draft }) {
  const name = projectName(projects, draft.projectId);
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
      <ChatPanel />
      <Composer placeholder="Write the first message…" submitLabel="Save conversation" onSubmit={onSaveDraft} />
    </section>
  );
}
