/**
 * The native <dialog>, opened modally for as long as it is mounted, in the WAI-ARIA dialog pattern:
 * the browser gives the focus trap and Escape, Escape calls `onClose` instead of closing the
 * element behind React's back, and when the dialog goes away focus returns to what opened it (the
 * element focused when it opened, or `returnFocus` — e.g. a menu's opener when the menu item that
 * opened the dialog is gone), never to <body>. Every dialog of the desktop (text forms, the
 * semantic consent, "Use with an agent") renders through it, labelled by its heading's id.
 */
import { useEffect, useRef, type ReactNode } from 'react';

export interface ModalDialogProps {
  className: string;
  titleId: string;
  onClose: () => void;
  /** Where focus goes when the dialog closes, if the element focused at opening is gone. */
  returnFocus?: HTMLElement | null | undefined;
  children: ReactNode;
}

/** Focus `el` if it is still in the page and focusable; true when it took the focus. */
function refocus(el: Element | null | undefined): boolean {
  if (!(el instanceof HTMLElement) || !el.isConnected || el === document.body) return false;
  el.focus();
  return document.activeElement === el;
}

export function ModalDialog({ className, titleId, onClose, returnFocus, children }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const fallback = useRef(returnFocus);
  fallback.current = returnFocus;
  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      // After React has finished this commit (the opener may re-render or re-mount).
      queueMicrotask(() => {
        if (document.activeElement && document.activeElement !== document.body && !d?.contains(document.activeElement)) return;
        if (!refocus(opener)) refocus(fallback.current ?? document.getElementById('main'));
      });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={titleId}
      aria-modal="true"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {children}
    </dialog>
  );
}
