/**
 * The open conversation: resumes a stored session (`session.resume`, so the project shown is the
 * one read from the DB, never recomputed from cwd), appends user messages, persists a draft with
 * its first message (`session.create` with the draft's own projectId), and changes the working
 * directory (`session.cwd.set`, which never touches the project). Reloads on gateway events that
 * name this session.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { titleFromText } from '../lib/format';
import type { Message, Session } from '../types';
import { useGatewayEvent } from './events';
import { useRpc } from './rpcContext';

export interface Draft {
  /** The project the draft was started in; kept when the first message is saved. */
  projectId: string | null;
  cwd?: string;
}

export type ConversationStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface ConversationApi {
  status: ConversationStatus;
  session: Session | null;
  messages: Message[];
  error: string | null;
  reload: () => Promise<void>;
  append: (content: string) => Promise<Message>;
  setCwd: (cwd: string) => Promise<Session>;
}

export function useConversation(sessionId: string | null): ConversationApi {
  const { rpc } = useRpc();
  const [status, setStatus] = useState<ConversationStatus>('idle');
  const [session, setSession] = useState<Session | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState<string | null>(null);
  const current = useRef(sessionId);
  current.current = sessionId;

  const load = useCallback(
    async (id: string, quiet: boolean) => {
      if (!quiet) setStatus('loading');
      try {
        const res = await rpc.call('session.resume', { sessionId: id });
        if (current.current !== id) return;
        setSession(res.session);
        setMessages(res.messages.filter((m) => m.visibility === 'live' || m.visibility === 'compacted'));
        setError(null);
        setStatus('ready');
      } catch (err) {
        if (current.current !== id) return;
        setError(errorText(err));
        setStatus('error');
      }
    },
    [rpc],
  );

  useEffect(() => {
    setSession(null);
    setMessages([]);
    setError(null);
    if (sessionId) void load(sessionId, false);
    else setStatus('idle');
  }, [sessionId, load]);

  const reload = useCallback(async () => {
    if (current.current) await load(current.current, true);
  }, [load]);

  useGatewayEvent(['messages.changed', 'sessions.changed'], (batch) => {
    const id = current.current;
    if (!id) return;
    if (batch.some((e) => !e.sessionIds || e.sessionIds.includes(id))) void load(id, true);
  });

  const append = useCallback(
    async (content: string) => {
      const id = current.current;
      if (!id) throw new Error('No conversation is open');
      const msg = await rpc.call('session.append', { sessionId: id, role: 'user', content });
      if (current.current === id) setMessages((ms) => (ms.some((m) => m.id === msg.id) ? ms : [...ms, msg]));
      return msg;
    },
    [rpc],
  );

  const setCwd = useCallback(
    async (cwd: string) => {
      const id = current.current;
      if (!id) throw new Error('No conversation is open');
      const s = await rpc.call('session.cwd.set', { sessionId: id, cwd });
      if (current.current === id) setSession(s);
      return s;
    },
    [rpc],
  );

  return { status, session, messages, error, reload, append, setCwd };
}

/** Persists a draft: one `session.create` carrying the draft's project and its first message. */
export function useSaveDraft(): (draft: Draft, firstMessage: string) => Promise<Session> {
  const { rpc } = useRpc();
  return useCallback(
    (draft: Draft, firstMessage: string) =>
      rpc.call('session.create', {
        projectId: draft.projectId,
        title: titleFromText(firstMessage),
        source: 'desktop',
        ...(draft.cwd ? { cwd: draft.cwd } : {}),
        messages: [{ role: 'user', content: firstMessage }],
      }),
    [rpc],
  );
}
