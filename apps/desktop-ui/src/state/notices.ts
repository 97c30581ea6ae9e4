/**
 * Status notices (toasts): short success/info lines that fade after a few seconds and error lines
 * that stay until dismissed — never pushed out by later successes (src/lib/noticeList.ts). Errors
 * carry the gateway's stable code via `errorText`.
 */
import { useCallback, useRef, useState } from 'react';
import { addNotice, type Notice, type NoticeAction, type NoticeKind } from '../lib/noticeList';
import { errorText } from '../rpc';

export type { Notice, NoticeKind } from '../lib/noticeList';

export interface NoticesApi {
  notices: Notice[];
  notify: (kind: NoticeKind, text: string, action?: NoticeAction) => void;
  fail: (prefix: string, err: unknown) => void;
  dismiss: (id: number) => void;
  dismissAll: () => void;
}

export const TRANSIENT_NOTICE_MS = 4500;
/** A notice with an action (Undo) stays longer: people need time to notice and reach it. */
export const ACTION_NOTICE_MS = 10_000;

export function useNotices(): NoticesApi {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setNotices((ns) => ns.filter((n) => n.id !== id)), []);
  const dismissAll = useCallback(() => setNotices([]), []);
  const notify = useCallback(
    (kind: NoticeKind, text: string, action?: NoticeAction) => {
      const id = nextId.current++;
      setNotices((ns) => addNotice(ns, { id, kind, text, ...(action ? { action } : {}) }));
      if (kind !== 'error') setTimeout(() => dismiss(id), action ? ACTION_NOTICE_MS : TRANSIENT_NOTICE_MS);
    },
    [dismiss],
  );
  const fail = useCallback((prefix: string, err: unknown) => notify('error', `${prefix}: ${errorText(err)}`), [notify]);
  return { notices, notify, fail, dismiss, dismissAll };
}
