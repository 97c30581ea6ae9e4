/**
 * A yes/no question in a modal dialog (ModalDialog: focus trap, Escape = no, focus back to the
 * opener). The safe answer is focused first. Used to confirm the home folder as a project folder.
 */
import { useId, type ReactNode } from 'react';
import { ModalDialog } from './ModalDialog';

export interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  yesLabel: string;
  noLabel?: string;
  onAnswer: (yes: boolean) => void;
}

export function ConfirmDialog({ title, children, yesLabel, noLabel = 'Cancel', onAnswer }: ConfirmDialogProps) {
  const id = useId();
  return (
    <ModalDialog className="dialog confirm-dialog" titleId={`${id}-title`} onClose={() => onAnswer(false)}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div className="dialog-desc">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => onAnswer(false)} autoFocus>
          {noLabel}
        </button>
        <button type="button" className="btn danger" onClick={() => onAnswer(true)}>
          {yesLabel}
        </button>
      </div>
    </ModalDialog>
  );
}
