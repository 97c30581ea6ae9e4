/**
 * The message composer: appends a user message to the open conversation, or — for a draft — saves
 * the draft with this first message. Ctrl/Cmd+Enter sends. On failure the text stays and the error
 * is shown under the box.
 */
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { errorText } from '../rpc';

export interface ComposerProps {
  placeholder: string;
  submitLabel: string;
  onSubmit: (text: string) => Promise<void>;
}

export function Composer({ placeholder, submitLabel, onSubmit }: ComposerProps) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const t = text.trim();
    if (!t || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(t);
      setText('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send();
  };

  return (
    <form className="composer" onSubmit={send}>
      <label htmlFor={`${id}-text`} className="sr-only">
        Message
      </label>
      <textarea
        id={`${id}-text`}
        rows={2}
        value={text}
        placeholder={placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        disabled={busy}
      />
      <div className="composer-row">
        <span className="composer-hint">{busy ? 'Saving…' : 'Ctrl+Enter to send'}</span>
        <button type="submit" className="btn primary" disabled={busy || !text.trim()}>
          {submitLabel}
        </button>
      </div>
      {error && (
        <p className="status-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
