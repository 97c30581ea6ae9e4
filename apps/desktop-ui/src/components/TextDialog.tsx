/**
 * A modal form with one or two text fields on the native <dialog> element (focus trap and Escape
 * come from the browser). Used for "New project", "Rename project", "Add folder", "Rename
 * conversation" and "Change working directory".
 * Submitting awaits the action; a failure is shown inside the dialog and the dialog stays open.
 * An optional warning (e.g. "a project with this name exists") is shown as the user types.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ModalDialog } from './ModalDialog';
import { errorText } from '../rpc';

export interface Field {
  name: string;
  label: string;
  initial?: string;
  placeholder?: string;
  required?: boolean;
  hint?: string;
}

export interface TextDialogProps {
  title: string;
  description?: ReactNode;
  fields: Field[];
  submitLabel: string;
  onSubmit: (values: Record<string, string>) => Promise<void>;
  onClose: () => void;
  /** A non-blocking warning about the current values (e.g. a duplicate project name). */
  warning?: (values: Record<string, string>) => string | null;
}

/** A field's element id: its own namespace, so no field name (not even "title") can take the heading's id. */
function fieldId(dialogId: string, name: string): string {
  return `${dialogId}-field-${name}`;
}

export function TextDialog({ title, description, fields, submitLabel, onSubmit, onClose, warning }: TextDialogProps) {
  const id = useId();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f.name, f.initial ?? ''])));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    for (const f of fields) {
      if (f.required && !values[f.name]?.trim()) {
        setError(`${f.label} is required`);
        return;
      }
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()])));
      onClose();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalDialog className="dialog" titleId={`${id}-title`} onClose={onClose}>
      <form onSubmit={submit} method="dialog">
        <h2 id={`${id}-title`}>{title}</h2>
        {description && <div className="dialog-desc">{description}</div>}
        {fields.map((f, i) => (
          <div className="field" key={f.name}>
            <label htmlFor={fieldId(id, f.name)}>{f.label}</label>
            <input
              id={fieldId(id, f.name)}
              type="text"
              value={values[f.name] ?? ''}
              placeholder={f.placeholder}
              autoFocus={i === 0}
              spellCheck={false}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
            {f.hint && <p className="field-hint">{f.hint}</p>}
          </div>
        ))}
        {warning?.(values) && (
          <p className="dialog-warn" role="status" data-testid="dialog-warning">
            {warning(values)}
          </p>
        )}
        {error && (
          <p className="dialog-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => !busy && onClose()} aria-disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn primary" aria-disabled={busy}>
            {busy ? 'Saving…' : submitLabel}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
