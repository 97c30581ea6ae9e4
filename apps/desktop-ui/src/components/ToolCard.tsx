/**
 * A compact, expandable card for one tool call and its result: the summary line shows the query,
 * the mode the tool actually used and the number of hits (or the error); expanded it shows the
 * arguments, every returned anchor as a link that opens the original message (`#/s/<sid>/m/<mid>`,
 * which scrolls to and highlights it, in whichever conversation of the project it is), the tool's
 * notes and the raw result. Collapsed by default; open when the call happened live on this page.
 */
import { useEffect, useState } from 'react';
import { formatArgs, hitsLabel, queryOf, type ToolView } from '../lib/chat';
import { anchorHash } from '../lib/links';
import { errorForPeople, notesForPeople } from '../lib/toolText';
import { Snippet } from './Snippet';

export interface ToolCardProps {
  view: ToolView;
  /** Open at first (a call made live on this page); stored calls start collapsed. */
  defaultOpen: boolean;
  /** The open conversation, to tag anchors in it. */
  currentSessionId: string | null;
  toolCallId?: string | null;
}

function argValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function ToolCard({ view, defaultOpen, currentSessionId, toolCallId }: ToolCardProps) {
  const [open, setOpen] = useState(defaultOpen);
  // A stored card may render before its live event arrives: open it when it turns out to be live.
  useEffect(() => {
    if (defaultOpen) setOpen(true);
  }, [defaultOpen]);
  const args = formatArgs(view.args);
  const query = queryOf(view.args);
  return (
    <details
      className={`tool-card${view.error ? ' failed' : ''}`}
      open={open}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-tool-call-id={toolCallId ?? undefined}
    >
      <summary>
        <span className="tool-name">{view.name}</span>
        {args && <span className="tool-args">{args}</span>}
        <span className="tool-facts">
          {view.usedMode !== null && (
            <span className="pill" title="mode the tool actually used">
              used <strong data-testid="tool-used-mode">{view.usedMode}</strong>
            </span>
          )}
          {view.error ? (
            <span className="pill pill-error" data-testid="tool-error-code">
              {view.error.code}
            </span>
          ) : (
            <span className="pill" data-testid="tool-hits" data-hits={view.hits}>
              {hitsLabel(view.hits)}
            </span>
          )}
        </span>
      </summary>
      {open && (
        <div className="tool-body">
          {view.error && (
            <p className="status-error" data-testid="tool-error">
              {errorForPeople(view.error)}
            </p>
          )}
          {view.args !== undefined && view.args !== null && (
            <dl className="tool-arglist" aria-label="Arguments">
              {typeof view.args === 'object' && !Array.isArray(view.args) ? (
                Object.entries(view.args as Record<string, unknown>).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{argValue(v)}</dd>
                  </div>
                ))
              ) : (
                <div>
                  <dt>arguments</dt>
                  <dd>{argValue(view.args)}</dd>
                </div>
              )}
            </dl>
          )}
          {!view.error && view.hits === 0 && (
            <p className="status-text tool-empty">
              Nothing found {view.scope === 'own_conversation' ? 'in this conversation’s own history' : 'in this conversation’s project'}.
            </p>
          )}
          {view.anchors.length > 0 && (
            <ol className="tool-anchors" aria-label="Returned messages">
              {view.anchors.map((a) => (
                <li key={`${a.session_id}:${a.message_id}`}>
                  <a className="tool-anchor" href={anchorHash(a)} data-session-id={a.session_id} data-message-id={a.message_id}>
                    <span className="tool-anchor-head">
                      <span className="tool-anchor-title">{a.title?.trim() || `Conversation ${a.session_id}`}</span>
                      {a.role && <span className={`role-tag role-${a.role}`}>{a.role}</span>}
                      {a.session_id === currentSessionId && <span className="tag">this conversation</span>}
                    </span>
                    {a.snippet && <Snippet text={a.snippet} query={query} />}
                  </a>
                </li>
              ))}
            </ol>
          )}
          {notesForPeople(view.notes).length > 0 && (
            <ul className="notes" aria-label="Tool notes">
              {notesForPeople(view.notes).map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
          {view.raw !== null && view.raw !== undefined && (
            <details className="tool-raw">
              <summary>Raw result</summary>
              <pre>{typeof view.raw === 'string' ? view.raw : JSON.stringify(view.raw, null, 2)}</pre>
            </details>
          )}
        </div>
      )}
    </details>
  );
}
