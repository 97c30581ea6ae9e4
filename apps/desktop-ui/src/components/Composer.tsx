/**
 * The message composer: the primary action (send to the model, add a message, or — for a draft —
 * save it with this first message) and an optional secondary one (e.g. "Add message" without an
 * answer while a model is configured). Ctrl/Cmd+Enter runs the primary action. While `blocked`
 * (the conversation is answering) the text can be written but not sent. On failure the text stays
 * and the error is shown under the box. The keyboard hint is only shown where there is a keyboard
 * (styles.css hides it on touch screens and narrow windows). With `focusKey` the box takes the
 * focus when it appears and whenever the key changes (a new draft: "+ New conversation").
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { errorText } from '../rpc';

export interface ComposerAction {
  label: string;
  onSubmit: (text: string) => Promise<void>;
}

export interface ComposerProps {
  placeholder: string;
  submitLabel: string;
  onSubmit: (text: string) => Promise<void>;
  secondary?: ComposerAction | undefined;
  /** Why sending is not possible right now (the text can still be written). */
  blocked?: string | null | undefined;
  hint?: string | undefined;
  /** Focus the box on mount and whenever this changes. */
  focusKey?: string | undefined;
}

export function Composer({ placeholder, submitLabel, onSubmit, secondary, blocked, hint, focusKey }: ComposerProps) {
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (focusKey !== undefined) box.current?.focus();
  }, [focusKey]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const run = async (action: (t: string) => Promise<void>) => {
    const t = text.trim();
    if (!t || busy || blocked) return;
    setBusy(true);
    setError(null);
    try {
      await action(t);
      setText('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const send = (e?: FormEvent) => {
    e?.preventDefault();
    void run(onSubmit);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
    }
  };

  const cannot = busy || !!blocked || !text.trim();
  return (
    <form className="composer" onSubmit={send}>
      <label htmlFor={`${id}-text`} className="sr-only">
        Message
      </label>
      <textarea
        ref={box}
        id={`${id}-text`}
        rows={2}
        value={text}
        placeholder={placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        disabled={busy}
      />
      <div className="composer-row">
        <span className="composer-hint" data-testid="composer-hint">
          {busy ? 'Saving…' : (blocked ?? <span className="keys-hint">{hint ?? 'Ctrl+Enter to send'}</span>)}
        </span>
        <span className="composer-actions">
          {secondary && (
            <button type="button" className="btn" disabled={cannot} onClick={() => void run(secondary.onSubmit)}>
              {secondary.label}
            </button>
          )}
          <button type="submit" className="btn primary" disabled={cannot}>
            {submitLabel}
          </button>
        </span>
      </div>
      {error && (
        <p className="status-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
