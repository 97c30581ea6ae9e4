/**
 * The notice stack: success/info lines fade, errors stay until dismissed (role="alert"). Wide
 * screens: a stack at the bottom right. Narrow screens (≤860px): a strip in the page flow under
 * the top bar, so a notice can never cover a control (styles.css).
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
