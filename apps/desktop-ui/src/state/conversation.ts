/**
 * The open conversation, one page at a time: `session.page` reads the newest page (or the page
 * around a linked message, so an anchor deep in a 5,000-message conversation opens directly) and
 * the session row in one snapshot — the project shown is the one read from the DB, never
 * recomputed from cwd. Older and newer pages load on request. Appends user messages, persists a
 * draft with its first message (`session.create` with the draft's own projectId), and changes the
 * working directory (`session.cwd.set`, which never touches the project). Gateway events that name
 * this session re-read the loaded range (edits, deletes and new messages at the end).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { titleFromText } from '../lib/format';
import type { Message, MessagePage, Session } from '@recall/rpc-contract';
import { useGatewayEvent } from './events';
import { useRpc } from './rpcContext';

export interface Draft {
  /** The project the draft was started in; kept when the first message is saved. */
  projectId: string | null;
  cwd?: string;
}

export type ConversationStatus = 'idle' | 'loading' | 'ready' | 'error';

/** Messages per page; a refresh re-reads at most MAX_RANGE of the loaded range. */
export const PAGE_SIZE = 200;
const MAX_RANGE = 1000;

export interface ConversationApi {
  status: ConversationStatus;
  session: Session | null;
  /** The loaded range of visible messages, in id order. */
  messages: Message[];
  /** More messages exist before the first / after the last loaded one. */
  hasOlder: boolean;
  hasNewer: boolean;
  /** The anchor the current range was loaded around (undefined: the newest page), and whether it is visible. */
  around: { messageId: number; visible: boolean } | undefined;
  paging: 'older' | 'newer' | null;
  error: string | null;
  reload: () => Promise<void>;
  loadOlder: () => Promise<void>;
  loadNewer: () => Promise<void>;
  append: (content: string) => Promise<Message>;
  setCwd: (cwd: string) => Promise<Session>;
}

function mergeById(a: Message[], b: Message[]): Message[] {
  const byId = new Map(a.map((m) => [m.id, m]));
  for (const m of b) byId.set(m.id, m);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}

export function useConversation(sessionId: string | null, targetMessageId?: number): ConversationApi {
  const { rpc } = useRpc();
  const [status, setStatus] = useState<ConversationStatus>('idle');
  const [session, setSession] = useState<Session | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [hasOlder, setHasOlder] = useState(false);
  const [hasNewer, setHasNewer] = useState(false);
  const [around, setAround] = useState<ConversationApi['around']>(undefined);
  const [paging, setPaging] = useState<ConversationApi['paging']>(null);
  const [error, setError] = useState<string | null>(null);
  const current = useRef(sessionId);
  current.current = sessionId;
  const state = useRef({ messages, hasOlder, hasNewer });
  state.current = { messages, hasOlder, hasNewer };

  const apply = useCallback((id: string, page: MessagePage, anchor: number | undefined) => {
    if (current.current !== id) return;
    setSession(page.session);
    setMessages(page.messages);
    setHasOlder(page.hasOlder);
    setHasNewer(page.hasNewer);
    setAround(anchor === undefined ? undefined : { messageId: anchor, visible: page.anchorVisible ?? false });
    setError(null);
    setStatus('ready');
  }, []);

  const open = useCallback(
    async (id: string, anchor: number | undefined, quiet: boolean) => {
      if (!quiet) setStatus('loading');
      try {
        const page = await rpc.call('session.page', anchor === undefined ? { sessionId: id, at: 'newest', limit: PAGE_SIZE } : { sessionId: id, aroundMessageId: anchor, limit: PAGE_SIZE });
        apply(id, page, anchor);
      } catch (err) {
        if (current.current !== id) return;
        setError(errorText(err));
        setStatus('error');
      }
    },
    [rpc, apply],
  );

  /** Re-reads the loaded range (edits, deletes, rewinds) and, at the end, what was added after it. */
  const refresh = useCallback(async () => {
    const id = current.current;
    if (!id) return;
    const { messages: loaded, hasNewer: more } = state.current;
    try {
      const first = loaded[0];
      const page =
        !first || (!more && loaded.length + PAGE_SIZE > MAX_RANGE)
          ? await rpc.call('session.page', { sessionId: id, at: 'newest', limit: Math.min(MAX_RANGE, Math.max(PAGE_SIZE, loaded.length + 20)) })
          : await rpc.call('session.page', { sessionId: id, afterId: first.id - 1, limit: Math.min(MAX_RANGE, loaded.length + PAGE_SIZE) });
      if (current.current !== id) return;
      setSession(page.session);
      setMessages(page.messages);
      setHasOlder(first ? page.hasOlder || state.current.hasOlder : page.hasOlder);
      setHasNewer(page.hasNewer);
      setStatus('ready');
    } catch (err) {
      if (current.current !== id) return;
      setError(errorText(err));
      setStatus('error');
    }
  }, [rpc]);

  // A new session: open at its newest page or around the linked message.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    opened.current = sessionId;
    setSession(null);
    setMessages([]);
    setHasOlder(false);
    setHasNewer(false);
    setAround(undefined);
    setError(null);
    if (sessionId) void open(sessionId, targetMessageId, false);
    else setStatus('idle');
    // Only a new session re-opens here; a new target in the same session is handled below.
  }, [sessionId, open]);

  // Another anchor in the same session: re-page around it unless it is already loaded.
  useEffect(() => {
    if (!sessionId || opened.current !== sessionId || targetMessageId === undefined) return;
    if (state.current.messages.some((m) => m.id === targetMessageId)) return;
    if (around?.messageId === targetMessageId) return;
    void open(sessionId, targetMessageId, true);
  }, [sessionId, targetMessageId, open, around]);

  const loadOlder = useCallback(async () => {
    const id = current.current;
    const first = state.current.messages[0];
    if (!id || !first) return;
    setPaging('older');
    try {
      const page = await rpc.call('session.page', { sessionId: id, beforeId: first.id, limit: PAGE_SIZE });
      if (current.current !== id) return;
      setMessages((ms) => mergeById(page.messages, ms));
      setHasOlder(page.hasOlder);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setPaging(null);
    }
  }, [rpc]);

  const loadNewer = useCallback(async () => {
    const id = current.current;
    const last = state.current.messages[state.current.messages.length - 1];
    if (!id || !last) return;
    setPaging('newer');
    try {
      const page = await rpc.call('session.page', { sessionId: id, afterId: last.id, limit: PAGE_SIZE });
      if (current.current !== id) return;
      setMessages((ms) => mergeById(ms, page.messages));
      setHasNewer(page.hasNewer);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setPaging(null);
    }
  }, [rpc]);

  const reload = useCallback(async () => {
    if (current.current) await refresh();
  }, [refresh]);

  useGatewayEvent(['messages.changed', 'sessions.changed'], (batch) => {
    const id = current.current;
    if (!id) return;
    if (batch.some((e) => !e.sessionIds || e.sessionIds.includes(id))) void refresh();
  });

  const append = useCallback(
    async (content: string) => {
      const id = current.current;
      if (!id) throw new Error('No conversation is open');
      const msg = await rpc.call('session.append', { sessionId: id, role: 'user', content });
      // Only shown in place when the loaded range reaches the end; else the end is loaded.
      if (current.current === id) {
        if (state.current.hasNewer) void open(id, undefined, true);
        else setMessages((ms) => (ms.some((m) => m.id === msg.id) ? ms : [...ms, msg]));
      }
      return msg;
    },
    [rpc, open],
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

  return { status, session, messages, hasOlder, hasNewer, around, paging, error, reload, loadOlder, loadNewer, append, setCwd };
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
