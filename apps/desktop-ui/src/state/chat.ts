/**
 * The chat runs of every conversation, for the whole page: `chat.status` (is a model configured,
 * how to configure one, runs already going on — e.g. after a reload), `chat.send` / `chat.cancel`
 * / `chat.compress`, and the `chat.*` events folded by `chatRunsReducer` (src/lib/chat.ts). Kept at
 * the top of the tree so switching conversations never loses a run that is still answering.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { chatRunsReducer, initialChatRuns, isActive, type ChatRun, type ChatRunsState } from '../lib/chat';
import { isMethodNotFound, RpcError, errorText } from '../rpc';
import type { ChatEvent, ChatStatus, Session } from '@recall/rpc-contract';
import { useRpc } from './rpcContext';

export interface ChatApi {
  /** null until the first `chat.status` answered. */
  status: ChatStatus | null;
  statusError: string | null;
  runs: ChatRunsState;
  runOf: (sessionId: string | null | undefined) => ChatRun | null;
  /** Sends through `chat.send`; rejects with the RpcError when the gateway refuses (nothing was stored then). */
  send: (sessionId: string, content: string) => Promise<void>;
  cancel: (sessionId: string) => Promise<void>;
  /** `chat.compress`: ends the segment; resolves with the continuation. */
  compress: (sessionId: string) => Promise<Session>;
  dismiss: (sessionId: string) => void;
  refreshStatus: () => Promise<void>;
}

const NO_CHAT_METHODS: ChatStatus = {
  configured: false,
  apiKeySet: false,
  missing: ['model'],
  howToConfigure: 'This gateway has no chat methods. Update Recall and restart `recall serve`.',
  searchAvailable: false,
  activeRuns: [],
};

function isChatEvent(e: { type: string }): e is ChatEvent {
  return e.type.startsWith('chat.');
}

export function useChat(enabled: boolean): ChatApi {
  const { rpc, events } = useRpc();
  const [runs, dispatch] = useReducer(chatRunsReducer, initialChatRuns);
  const [status, setStatus] = useState<ChatStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const runsRef = useRef(runs);
  runsRef.current = runs;

  const refreshStatus = useCallback(async () => {
    const requestedAt = Date.now();
    try {
      const s = await rpc.call('chat.status', {});
      setStatus(s);
      setStatusError(null);
      dispatch({ kind: 'status', activeRuns: s.activeRuns ?? [], requestedAt });
    } catch (err) {
      if (isMethodNotFound(err)) {
        setStatus(NO_CHAT_METHODS);
        setStatusError(null);
      } else setStatusError(errorText(err));
    }
  }, [rpc]);

  useEffect(() => {
    if (enabled) void refreshStatus();
  }, [enabled, refreshStatus]);

  // chat.* events are applied at once (they carry the stream); a reconnect re-reads the status.
  useEffect(
    () =>
      events.subscribe((e) => {
        if (e.type === 'resync') void refreshStatus();
        else if (isChatEvent(e)) dispatch({ kind: 'event', event: e });
      }),
    [events, refreshStatus],
  );

  const send = useCallback(
    async (sessionId: string, content: string) => {
      if (isActive(runsRef.current.bySession[sessionId])) throw new RpcError('chat.send', 'chat_busy', 'This conversation is still answering.');
      dispatch({ kind: 'sending', sessionId, content });
      try {
        const r = await rpc.call('chat.send', { sessionId, content });
        dispatch({ kind: 'sent', sessionId, runId: r.runId, userMessageId: r.userMessageId });
      } catch (err) {
        const code = err instanceof RpcError ? (err.dataCode ?? String(err.code)) : 'error';
        dispatch({ kind: 'refused', sessionId });
        // The model may have been configured or removed since the page loaded, or a run started elsewhere.
        if (code === 'chat_not_configured' || code === 'chat_busy') void refreshStatus();
        throw err;
      }
    },
    [rpc, refreshStatus],
  );

  const cancel = useCallback(
    async (sessionId: string) => {
      const run = runsRef.current.bySession[sessionId];
      if (!run?.runId || !isActive(run)) return;
      dispatch({ kind: 'cancelling', sessionId, on: true });
      try {
        // The run ends with chat.error chat_cancelled (or had already ended: its terminal event tells).
        await rpc.call('chat.cancel', { runId: run.runId });
      } catch (err) {
        dispatch({ kind: 'cancelling', sessionId, on: false });
        if (err instanceof RpcError && err.dataCode === 'chat_run_not_found') {
          void refreshStatus();
          return;
        }
        throw err;
      }
    },
    [rpc, refreshStatus],
  );

  const compress = useCallback(
    async (sessionId: string) => {
      const r = await rpc.call('chat.compress', { sessionId });
      return r.session;
    },
    [rpc],
  );

  const dismiss = useCallback((sessionId: string) => dispatch({ kind: 'dismiss', sessionId }), []);
  const runOf = useCallback((sessionId: string | null | undefined) => (sessionId ? (runs.bySession[sessionId] ?? null) : null), [runs]);

  return { status, statusError, runs, runOf, send, cancel, compress, dismiss, refreshStatus };
}

/** `data.continuationId` of a `chat_session_ended` refusal. */
export function continuationOf(err: unknown): string | null {
  if (!(err instanceof RpcError) || err.dataCode !== 'chat_session_ended') return null;
  const d = err.data as { continuationId?: unknown } | undefined;
  return typeof d?.continuationId === 'string' ? d.continuationId : null;
}
