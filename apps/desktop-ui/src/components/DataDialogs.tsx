/**
 * The user's data out and away, from the conversation and project menus: "Export…" (choose
 * recall-jsonl or Markdown, the gateway returns the file's text, the browser saves it through a Blob
 * and a download link) and "Delete…" (a confirmation naming what goes, then a real delete over RPC).
 * A project that still has conversations is deleted only with the "also delete its conversations"
 * box ticked; without it the gateway refuses and the dialog says why. Dialogs are the native modal
 * <dialog> (ModalDialog); Cancel has the focus first in a delete dialog, so Enter never deletes.
 * While a request runs the buttons are aria-disabled, not disabled: a disabled button that has the
 * focus drops it to <body>.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Project } from '@recall/rpc-contract';
import type { Conversation } from '../lib/grouping';
import { errorText, RpcError } from '../rpc';
import { useRpc } from '../state/rpcContext';
import { ModalDialog } from './ModalDialog';

/** What an Export… or Delete… dialog is about. */
export type DataTarget = { kind: 'conversation'; conversation: Conversation } | { kind: 'project'; project: Project; conversations: number };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function targetName(t: DataTarget): string {
  return t.kind === 'conversation' ? t.conversation.title : t.project.name;
}

/** Saves text as a file: a Blob, an object URL and a clicked `<a download>` (kept for a manual retry). */
function useDownload() {
  const [link, setLink] = useState<{ url: string; fileName: string } | null>(null);
  const anchor = useRef<HTMLAnchorElement>(null);
  useEffect(() => () => (link ? URL.revokeObjectURL(link.url) : undefined), [link]);
  useEffect(() => {
    anchor.current?.click();
  }, [link]);
  const save = (text: string, fileName: string, mimeType: string) => setLink({ url: URL.createObjectURL(new Blob([text], { type: mimeType })), fileName });
  return { link, anchor, save };
}

export function ExportDialog({ target, onClose, onDone }: { target: DataTarget; onClose: () => void; onDone: (text: string) => void }) {
  const id = useId();
  const { rpc } = useRpc();
  const [format, setFormat] = useState<'recall-jsonl' | 'markdown'>('recall-jsonl');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { link, anchor, save } = useDownload();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const r =
        target.kind === 'conversation'
          ? await rpc.call('conversations.export', { sessionId: target.conversation.head.id, format })
          : await rpc.call('projects.export', { projectId: target.project.id, format });
      save(r.text, r.fileName, r.mimeType);
      onDone(`Exported “${targetName(target)}”: ${plural(r.sessions, 'session')}, ${plural(r.messages, 'message')} in ${r.fileName}`);
    } catch (err) {
      setError(err instanceof RpcError && err.dataCode === 'export_too_large' ? `${err.message}` : errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalDialog className="dialog" titleId={`${id}-title`} onClose={onClose}>
      <form onSubmit={submit} method="dialog">
        <h2 id={`${id}-title`}>Export “{targetName(target)}”</h2>
        <p className="dialog-desc">
          {target.kind === 'conversation'
            ? 'The whole conversation, with its continued parts and sub-agent sessions.'
            : `All ${plural(target.conversations, 'conversation')} of the project.`}{' '}
          The file is made on this computer and saved by your browser; nothing is sent anywhere else.
        </p>
        <fieldset className="field export-formats">
          <legend>Format</legend>
          <label>
            <input type="radio" name={`${id}-format`} value="recall-jsonl" checked={format === 'recall-jsonl'} onChange={() => setFormat('recall-jsonl')} autoFocus />{' '}
            Recall JSONL <span className="field-hint">— complete; “recall import” reads it back</span>
          </label>
          <label>
            <input type="radio" name={`${id}-format`} value="markdown" checked={format === 'markdown'} onChange={() => setFormat('markdown')} /> Markdown{' '}
            <span className="field-hint">— a document to read or share</span>
          </label>
        </fieldset>
        {link && (
          <p className="dialog-desc" role="status">
            Saved.{' '}
            <a ref={anchor} href={link.url} download={link.fileName}>
              Download “{link.fileName}” again
            </a>
          </p>
        )}
        {error && (
          <p className="dialog-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => !busy && onClose()} aria-disabled={busy}>
            {link ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" className="btn primary" aria-disabled={busy}>
            {busy ? 'Exporting…' : 'Export'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

export function DeleteDialog({ target, onClose, onDeleted }: { target: DataTarget; onClose: () => void; onDeleted: (text: string) => void }) {
  const id = useId();
  const { rpc } = useRpc();
  const [withConversations, setWithConversations] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = targetName(target);
  const hasConversations = target.kind === 'project' && target.conversations > 0;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      if (target.kind === 'conversation') {
        const r = await rpc.call('conversations.delete', { sessionId: target.conversation.head.id });
        onDeleted(`Deleted “${name}” (${plural(r.messages, 'message')})`);
      } else {
        await rpc.call('projects.delete', { projectId: target.project.id, withConversations });
        onDeleted(withConversations && hasConversations ? `Deleted the project “${name}” and its conversations` : `Deleted the project “${name}”`);
      }
    } catch (err) {
      if (err instanceof RpcError && err.dataCode === 'project_has_sessions') {
        setError(`“${name}” still has conversations, so it was not deleted. Move them to another project first, or tick “Also delete its conversations”.`);
      } else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalDialog className="dialog" titleId={`${id}-title`} onClose={onClose}>
      <form onSubmit={submit} method="dialog" aria-describedby={`${id}-what`}>
        <h2 id={`${id}-title`}>{target.kind === 'conversation' ? 'Delete conversation?' : 'Delete project?'}</h2>
        <div className="dialog-desc" id={`${id}-what`}>
          {target.kind === 'conversation' ? (
            <p>
              <strong>“{name}”</strong> will be deleted for good
              {target.conversation.members.length > 1 ? `, with all ${target.conversation.members.length} of its parts` : ''}: every message, its search index
              entries and its semantic vectors, also from the database file. Backups made before now still contain it. This cannot be undone.
            </p>
          ) : (
            <p>
              The project <strong>“{name}”</strong> and its folders will be removed
              {hasConversations ? (withConversations ? `, together with its ${plural(target.conversations, 'conversation')} — deleted for good, also from the database file` : `. It has ${plural(target.conversations, 'conversation')}: tick the box to delete ${target.conversations === 1 ? 'it' : 'them'} too, or move ${target.conversations === 1 ? 'it' : 'them'} out first`) : ''}. This cannot be undone.
            </p>
          )}
        </div>
        {hasConversations && (
          <div className="field">
            <label className="check-label">
              <input type="checkbox" checked={withConversations} onChange={(e) => {
                  setWithConversations(e.target.checked);
                  setError(null);
                }} /> Also delete its {plural((target as { conversations: number }).conversations, 'conversation')}
            </label>
          </div>
        )}
        {error && (
          <p className="dialog-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => !busy && onClose()} aria-disabled={busy} autoFocus>
            Cancel
          </button>
          <button type="submit" className="btn danger" aria-disabled={busy}>
            {busy ? 'Deleting…' : target.kind === 'conversation' ? 'Delete conversation' : 'Delete project'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
