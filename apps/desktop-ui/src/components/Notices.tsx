/**
 * The notice stack: success/info lines fade, errors stay until dismissed (role="alert"); a notice
 * may carry one action (e.g. "Undo" after a move). Always a strip in the page flow — above the
 * conversation on wide screens, under the top bar on narrow ones — so a notice never covers a
 * control or a search result (styles.css).
 */
import type { Notice } from '../state/notices';

export interface NoticesProps {
  notices: Notice[];
  onDismiss: (id: number) => void;
  onDismissAll: () => void;
}

export function Notices({ notices, onDismiss, onDismissAll }: NoticesProps) {
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span>
            {n.text}
            {n.count > 1 && <span className="notice-count"> (×{n.count})</span>}
          </span>
          {n.action && (
            <button
              type="button"
              className="btn small notice-action"
              onClick={() => {
                onDismiss(n.id);
                n.action!.run();
              }}
            >
              {n.action.label}
            </button>
          )}
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => onDismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
      {notices.length > 2 && (
        <button type="button" className="link-btn notices-clear" onClick={onDismissAll}>
          Dismiss all
        </button>
      )}
    </div>
  );
}
