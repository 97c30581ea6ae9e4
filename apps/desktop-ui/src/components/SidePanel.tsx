/**
 * The side panel's tabs (Search / Index) in the WAI-ARIA tabs pattern: one tab in the Tab order
 * (roving tabindex), Left/Right arrows move between tabs and select them, Home/End go to the first
 * and last; the selected tab controls the one tab panel. The Index tab's status dot has a name.
 */
import { useRef, type KeyboardEvent, type ReactNode } from 'react';

export type SideTab = 'search' | 'index';

const TABS: ReadonlyArray<{ id: SideTab; label: string }> = [
  { id: 'search', label: 'Search' },
  { id: 'index', label: 'Index' },
];

export interface SidePanelProps {
  selected: SideTab;
  onSelect: (tab: SideTab) => void;
  /** The Index tab's dot: its CSS state and its accessible name; null = no dot. */
  indexDot: { state: string; label: string } | null;
  children: ReactNode;
}

export function SidePanel({ selected, onSelect, indexDot, children }: SidePanelProps) {
  const refs = useRef<Record<SideTab, HTMLButtonElement | null>>({ search: null, index: null });
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    const i = TABS.findIndex((t) => t.id === selected);
    const next =
      e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i - 1 + TABS.length) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const tab = TABS[next]!.id;
    onSelect(tab);
    refs.current[tab]?.focus();
  };
  return (
    <aside className="panel" aria-label="Search and index">
      <div className="panel-tabs" role="tablist" aria-label="Side panel">
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={selected === t.id}
            aria-controls={`tabpanel-${t.id}`}
            tabIndex={selected === t.id ? 0 : -1}
            className={`tab${selected === t.id ? ' on' : ''}`}
            onClick={() => onSelect(t.id)}
            onKeyDown={onKeyDown}
          >
            {t.label}
            {t.id === 'index' && indexDot && (
              <span className={`dot-status sem-${indexDot.state}`} role="img" aria-label={indexDot.label} title={indexDot.label} data-testid="index-dot" />
            )}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`tabpanel-${selected}`} aria-labelledby={`tab-${selected}`} className="panel-scroll">
        {children}
      </div>
    </aside>
  );
}
