/**
 * The native <dialog>, opened modally for as long as it is mounted: the browser gives the focus trap
 * and Escape, and Escape calls `onClose` instead of closing the element behind React's back. Every
 * dialog of the desktop (text forms, the semantic consent, "Use with an agent") renders through it,
 * labelled by its heading's id.
 */
import { useEffect, useRef, type ReactNode } from 'react';

export function ModalDialog({ className, titleId, onClose, children }: { className: string; titleId: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {children}
    </dialog>
  );
}
