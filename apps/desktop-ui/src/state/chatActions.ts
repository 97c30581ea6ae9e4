/**
 * What the conversation view's chat buttons do at the page level: send to the model (and, when the
 * part was compressed elsewhere meanwhile, open the latest part instead), `/compress` (then open
 * the continuation), and a draft's first message to the model (store the draft in its project
 * first; when the model is not asked, the message is kept as a plain message).
 */
import { useState } from 'react';
import { titleFromText } from '../lib/format';
import type { Route } from '../lib/links';
import { continuationOf, type ChatApi } from './chat';
import type { Draft } from './conversation';
import type { NoticesApi } from './notices';
import type { ProjectsApi } from './projects';
import { useRpc } from './rpcContext';

export interface ChatActions {
  /** The session whose `/compress` is running, if any. */
  compressing: string | null;
  chatSend: (sessionId: string, text: string) => Promise<void>;
  compressConversation: (sessionId: string) => Promise<void>;
  draftChat: (text: string) => Promise<void>;
}

export interface ChatActionsDeps {
  chat: ChatApi;
  draft: Draft | null;
  go: (r: Route) => void;
  replace: (r: Route) => void;
  notify: NoticesApi['notify'];
  fail: NoticesApi['fail'];
  refreshGroups: ProjectsApi['refreshGroups'];
}

export function useChatActions({ chat, draft, go, replace, notify, fail, refreshGroups }: ChatActionsDeps): ChatActions {
  const { rpc } = useRpc();
  const [compressing, setCompressing] = useState<string | null>(null);

  /** A chat refused because the session was compressed elsewhere: open the continuation. */
  const openContinuation = (err: unknown): boolean => {
    const next = continuationOf(err);
    if (!next) return false;
    notify('info', 'This part of the conversation was compressed; opened the latest part.');
    go({ view: 'session', sessionId: next });
    return true;
  };

  const chatSend = async (sessionId: string, text: string) => {
    try {
      await chat.send(sessionId, text);
    } catch (err) {
      if (openContinuation(err)) throw new Error('Not sent: this part was compressed. The latest part is open now; send it there.');
      throw err;
    }
  };

  const compressConversation = async (sessionId: string) => {
    setCompressing(sessionId);
    try {
      const next = await chat.compress(sessionId);
      notify('success', 'Compressed: the conversation continues in a new part; the earlier part stays searchable');
      go({ view: 'session', sessionId: next.id });
    } catch (err) {
      if (!openContinuation(err)) fail('Could not compress', err);
    } finally {
      setCompressing(null);
    }
  };

  /** A draft's first message to the model: store the draft in its project, then chat.send. */
  const draftChat = async (text: string) => {
    if (!draft) return;
    const s = await rpc.call('session.create', {
      projectId: draft.projectId,
      title: titleFromText(text),
      source: 'desktop',
      ...(draft.cwd ? { cwd: draft.cwd } : {}),
      ...(chat.status?.model ? { model: chat.status.model } : {}),
    });
    replace({ view: 'session', sessionId: s.id });
    void refreshGroups([s.projectId]).catch(() => undefined);
    try {
      await chat.send(s.id, text);
    } catch (err) {
      // The refusal stored nothing: keep what the user wrote as a plain message.
      await rpc.call('session.append', { sessionId: s.id, role: 'user', content: text }).catch(() => undefined);
      fail('Saved your message, but the model was not asked', err);
    }
  };

  return { compressing, chatSend, compressConversation, draftChat };
}
