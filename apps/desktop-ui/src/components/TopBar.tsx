/**
 * The top bar: sidebar toggle (narrow screens), app name, live-connection state of the event
 * socket, and on narrow screens the switch between the conversation and the side panels.
 */
import type { LiveState } from '../state/events';

export type PaneName = 'conversation' | 'search' | 'index';

export interface TopBarProps {
  live: LiveState;
  sidebarOpen: boolean;
  onToggleSidebar: () => void;
  pane: PaneName;
  onPane: (p: PaneName) => void;
}

function liveText(l: LiveState): string {
  switch (l.state) {
    case 'open':
      return 'Live';
    case 'connecting':
      return 'Connecting…';
    case 'closed':
      return l.retryInMs !== undefined ? `Offline — retrying in ${Math.ceil(l.retryInMs / 1000)} s` : 'Offline';
    default:
      return 'Not connected';
  }
}

export function TopBar({ live, sidebarOpen, onToggleSidebar, pane, onPane }: TopBarProps) {
  return (
    <header className="topbar">
      <button
        type="button"
        className="icon-btn sidebar-toggle"
        aria-expanded={sidebarOpen}
        aria-controls="sidebar"
        aria-label={sidebarOpen ? 'Hide projects' : 'Show projects'}
        onClick={onToggleSidebar}
      >
        ☰
      </button>
      <a className="brand" href="#/">
        Recall
      </a>
      <span className={`live live-${live.state}`} role="status" title="Gateway event connection">
        <span className="dot" aria-hidden="true" />
        {liveText(live)}
      </span>
      <nav className="pane-switch" aria-label="Panes">
        {(['conversation', 'search', 'index'] as const).map((p) => (
          <button key={p} type="button" className={`pane-btn${pane === p ? ' on' : ''}`} aria-pressed={pane === p} onClick={() => onPane(p)}>
            {p === 'conversation' ? 'Chat' : p === 'search' ? 'Search' : 'Index'}
          </button>
        ))}
      </nav>
    </header>
  );
}
