/**
 * The model chat of a conversation (docs/rpc.md, "For the chat panel"). `ChatPanel` is the strip
 * above the composer: which model answers (or, with none configured, how to configure one — the
 * gateway's `howToConfigure` text — while the plain composer keeps working), what the current run
 * is doing, Stop (`chat.cancel`), the run's error with "Send again" when it is retryable, and the
 * `/compress` action. `ChatLive` renders, at the end of the message list, what is not stored yet:
 * the user's message in flight, tool cards of `chat.tool` events whose message has not loaded,
 * and the answer streaming in from `chat.delta` (dropped on error; replaced by the stored message
 * on `chat.done`).
 */
import { useState } from 'react';
import { isActive, liveText, runPhase, toolViewFromEvent, type ChatRun } from '../lib/chat';
import type { ChatStatus, Session } from '@recall/rpc-contract';
import { LinkedText } from './MessageItem';
import { ToolCard } from './ToolCard';

/**
 * How to get a model, written for people: what is needed, the common local servers with their
 * addresses, one command to copy. The gateway's own exact wording follows it.
 */
function ModelSetupHelp() {
  return (
    <div className="howto-steps" data-testid="chat-howto-steps">
      <p>Recall can ask any model that speaks the OpenAI chat API — one running on this computer, or a service.</p>
      <ol>
        <li>
          <strong>Start a model server.</strong> On this computer: Ollama (address <code>http://127.0.0.1:11434/v1</code>), LM Studio (
          <code>http://127.0.0.1:1234/v1</code>), llama.cpp or vLLM (<code>http://127.0.0.1:8000/v1</code>). Or use OpenAI with an API key.
        </li>
        <li>
          <strong>Restart Recall with the model's name and address</strong>, for example:
          <pre className="howto-cmd">
            <code>RECALL_CHAT_MODEL=qwen2.5:7b RECALL_CHAT_BASE_URL=http://127.0.0.1:11434/v1 npx -y pnpm@10 recall serve</code>
          </pre>
          For OpenAI: <code>RECALL_CHAT_MODEL=gpt-4o-mini OPENAI_API_KEY=… npx -y pnpm@10 recall serve</code>.
        </li>
        <li>A key is only read from the environment; Recall never writes it to its files or shows it here.</li>
      </ol>
    </div>
  );
}

export interface ChatPanelProps {
  status: ChatStatus | null;
  statusError: string | null;
  /** The open conversation; null for a draft. */
  session: Session | null;
  /** The session is an earlier part of its conversation (compressed, or a later part exists). */
  ended: boolean;
  run: ChatRun | null;
  compressing: boolean;
  onCancel: () => void;
  onCompress: () => void;
  onSendAgain: (content: string) => void;
  onDismiss: () => void;
}

/** A model answers here: one is configured and this is not an earlier part of the conversation. */
export function chatUsable(status: ChatStatus | null, ended: boolean): boolean {
  return !!status?.configured && !ended;
}

/** The gateway's names of missing chat settings, in words. */
const MISSING_TEXT: Record<string, string> = {
  model: 'the model name',
  'apiKey or baseUrl': 'an API key, or the address of a local model server',
};
function missingText(field: string): string {
  return MISSING_TEXT[field] ?? field;
}

export function ChatPanel({ status, statusError, session, ended, run, compressing, onCancel, onCompress, onSendAgain, onDismiss }: ChatPanelProps) {
  const [confirming, setConfirming] = useState(false);
  const active = isActive(run);
  const canCompress = !!session && !ended && !active;

  return (
    <section className="chat-panel" aria-label="Model chat">
      <div className="chat-row">
        <div className="chat-state" data-testid="chat-status">
          {status === null ? (
            <span className="status-text">{statusError ? `Chat status unavailable: ${statusError}` : 'Checking the chat model…'}</span>
          ) : status.configured ? (
            <span className="chat-model">
              Model <strong>{status.model}</strong>
              {status.searchAvailable ? ' · recalls this project with session_search' : ' · session_search is unavailable in this gateway'}
            </span>
          ) : (
            <details className="chat-howto">
              <summary>
                <strong>No chat model configured</strong>
                <span className="howto-more"> — messages you add are stored and searchable.</span> How to set one up
              </summary>
              <ModelSetupHelp />
              <p className="howto-exact">
                <span className="howto-exact-label">The exact settings, as the gateway describes them: </span>
                <span className="howto-text" data-testid="chat-howto">
                  {status.howToConfigure}
                </span>
              </p>
              {status.missing.length > 0 && <p className="status-text">Not set yet: {status.missing.map(missingText).join('; ')}.</p>}
            </details>
          )}
        </div>
        {session && !confirming && (
          <button
            type="button"
            className="btn small"
            disabled={!canCompress || compressing}
            title={
              ended
                ? 'This part was already compressed'
                : 'End this part and continue in a fresh context; the earlier part stays searchable'
            }
            onClick={() => setConfirming(true)}
          >
            {compressing ? 'Compressing…' : '/compress'}
          </button>
        )}
      </div>

      {confirming && session && (
        <div className="chat-confirm" role="group" aria-label="Confirm /compress">
          <span>End this part and continue in a new part with a fresh context? The earlier messages stay in the project and findable.</span>
          <span className="chat-actions">
            <button
              type="button"
              className="btn small primary"
              onClick={() => {
                setConfirming(false);
                onCompress();
              }}
            >
              Compress
            </button>
            <button type="button" className="btn small" onClick={() => setConfirming(false)}>
              Keep going
            </button>
          </span>
        </div>
      )}

      {ended && status?.configured && (
        <p className="status-text chat-note">This part was compressed; the chat continues in the latest part of the conversation.</p>
      )}

      {run && active && (
        <div className="chat-row chat-running">
          <span className="chat-phase" role="status" data-testid="chat-phase">
            <span className="spinner" aria-hidden="true" />
            {runPhase(run)}
          </span>
          <button type="button" className="btn small" onClick={onCancel} disabled={!run.runId || run.cancelling}>
            Stop
          </button>
        </div>
      )}

      {run && run.status === 'error' && run.error && (
        <div className={`chat-row chat-error ${run.error.status}`} role="alert" data-testid="chat-error" data-code={run.error.code}>
          <span>
            {run.error.status === 'cancelled'
              ? 'Stopped. What the turn completed before stopping stays stored.'
              : `The model could not answer: ${run.error.message}${run.error.code && !run.error.message.includes(run.error.code) ? ` (${run.error.code})` : ''}`}
          </span>
          <span className="chat-actions">
            {run.error.retryable && run.content && status?.configured && (
              <button type="button" className="btn small" onClick={() => onSendAgain(run.content!)}>
                Send again
              </button>
            )}
            <button type="button" className="icon-btn" aria-label="Dismiss" onClick={onDismiss}>
              ×
            </button>
          </span>
        </div>
      )}
    </section>
  );
}

export interface ChatLiveProps {
  run: ChatRun | null;
  /** Ids of the messages the list shows (stored and loaded). */
  storedIds: ReadonlySet<number>;
  currentSessionId: string;
}

export function ChatLive({ run, storedIds, currentSessionId }: ChatLiveProps) {
  if (!run || run.sessionId !== currentSessionId) return null;
  const active = isActive(run);
  const text = liveText(run);
  const pendingUser = active && run.content !== null && (run.userMessageId === null || !storedIds.has(run.userMessageId));
  const pendingTools = run.status === 'error' ? [] : run.tools.filter((t) => !storedIds.has(t.messageId));
  const finalPending = run.status === 'done' && run.finalMessageId !== null && !storedIds.has(run.finalMessageId);
  const showBubble = active || (finalPending && text !== '');
  if (!pendingUser && pendingTools.length === 0 && !showBubble) return null;
  return (
    <div className="chat-live" data-run-id={run.runId ?? undefined}>
      {pendingUser && (
        <div className="msg role-user pending">
          <div className="msg-head">
            <span className="msg-role">You</span>
            <span className="msg-time">sending…</span>
          </div>
          <div className="msg-body">{run.content}</div>
        </div>
      )}
      {pendingTools.map((t) => (
        <div key={`${t.toolCallId}:${t.messageId}`} className="msg role-tool pending">
          <div className="msg-head">
            <span className="msg-role">Tool</span>
            <span className="msg-tool">result</span>
          </div>
          <ToolCard view={toolViewFromEvent(t)} defaultOpen currentSessionId={currentSessionId} toolCallId={t.toolCallId} />
        </div>
      ))}
      {showBubble && (
        <div className="msg role-assistant chat-stream" aria-busy={active} data-testid="chat-stream">
          <div className="msg-head">
            <span className="msg-role">Assistant</span>
            <span className="msg-tool">{active ? runPhase(run) : 'saving…'}</span>
          </div>
          <div className="msg-body">{text ? <LinkedText text={text} /> : <span className="typing" aria-label="waiting for the model" />}</div>
        </div>
      )}
    </div>
  );
}
