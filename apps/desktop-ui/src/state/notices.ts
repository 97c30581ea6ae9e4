/**
 * Status notices (toasts): short success/info lines that fade after a few seconds and error lines
 * that stay until dismissed. Errors carry the gateway's stable code via `errorText`.
 */
import { useCallback, useRef, useState } from 'react';
import { errorText } from '../rpc';

export type NoticeKind = 'success' | 'info' | 'error';
export interface Notice {
  id: number;
  kind: NoticeKind;
  text: string;
}

export interface NoticesApi {
  notices: Notice[];
  notify: (kind: NoticeKind, text: string) => void;
  fail: (prefix: string, err: unknown) => void;
  dismiss: (id: number) => void;
}

export function useNotices(): NoticesApi {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setNotices((ns) => ns.filter((n) => n.id !== id)), []);
  const notify = useCallback(
    (kind: NoticeKind, text: string) => {
      const id = nextId.current++;
      setNotices((ns) => [...ns.slice(-2), { id, kind, text }]);
      if (kind !== 'error') setTimeout(() => dismiss(id), 4500);
    },
    [dismiss],
  );
  const fail = useCallback((prefix: string, err: unknown) => notify('error', `${prefix}: ${errorText(err)}`), [notify]);
  return { notices, notify, fail, dismiss };
}
