/**
 * The notice stack: success/info lines fade, errors stay until dismissed (role="alert"); a notice
 * may carry one action (e.g. "Undo" after a move). On wide screens an overlay at the foot of the
 * sidebar that never pushes the page down nor covers the conversation or the search results; on
 * narrow ones a strip under the top bar (an overlay there would cover controls). Never a tower: at
 * most MAX_SHOWN notices are on screen, the newest, with "N more · Dismiss all" (styles.css).
 */
import type { Notice } from '../state/notices';

export interface NoticesProps {
  notices: Notice[];
  onDismiss: (id: number) => void;
  onDismissAll: () => void;
}

/** Notices on screen at once; older ones wait behind "N more". */
export const MAX_SHOWN = 3;

export function Notices({ notices, onDismiss, onDismissAll }: NoticesProps) {
  const shown = notices.slice(-MAX_SHOWN);
  const hidden = notices.length - shown.length;
  return (
    <div className="notices" aria-live="polite">
      {shown.map((n) => (
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
        <button type="button" className="link-btn notices-clear" onClick={onDismissAll} data-testid="notices-clear">
          {hidden > 0 ? `${hidden} more · Dismiss all` : 'Dismiss all'}
        </button>
      )}
    </div>
  );
}
