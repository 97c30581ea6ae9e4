/**
 * The page's layout state: whether the screen is narrow (≤ 860 px: the sidebar becomes a drawer
 * and one pane — conversation, search or index — is shown at a time), the drawer, the pane, and
 * the two ways of moving around: `go` (navigate, back to the conversation pane, drawer closed) and
 * `focusSearch` ("Skip to search", Ctrl/Cmd+K anywhere and "/" outside text fields: the search
 * pane with its box focused). Escape closes the drawer; shortcuts and Escape leave an open menu or
 * dialog alone (`modalOpen`).
 */
import { useCallback, useEffect, useState } from 'react';
import { SEARCH_BOX_ID } from '../components/SearchPanel';
import type { PaneName } from '../components/TopBar';
import type { Route } from '../lib/links';

const NARROW = '(max-width: 860px)';

function useMediaQuery(q: string): boolean {
  const [match, setMatch] = useState(() => globalThis.matchMedia?.(q).matches ?? false);
  useEffect(() => {
    const mq = matchMedia(q);
    const on = () => setMatch(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, [q]);
  return match;
}

/** After the drawer closed (and went inert), focus `selector` if the focus fell to <body>. */
function refocusAfterDrawer(selector: string): void {
  requestAnimationFrame(() => {
    const a = document.activeElement;
    if (a && a !== document.body && !a.closest('#sidebar')) return;
    document.querySelector<HTMLElement>(selector)?.focus({ preventScroll: true });
  });
}

export interface Layout {
  narrow: boolean;
  sidebarOpen: boolean;
  setSidebarOpen: (open: boolean | ((open: boolean) => boolean)) => void;
  pane: PaneName;
  setPane: (pane: PaneName) => void;
  /** Navigates, shows the conversation pane and closes the drawer on a narrow screen. */
  go: (r: Route | string) => void;
  /** Shows the search pane and focuses (and selects) the search box. */
  focusSearch: () => void;
}

export function useLayout(navigate: (r: Route | string) => void, modalOpen: boolean): Layout {
  const narrow = useMediaQuery(NARROW);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const [pane, setPane] = useState<PaneName>('conversation');
  const [searchFocusRequest, setSearchFocusRequest] = useState(0);

  // Narrow screens: the sidebar is a drawer; Escape closes it and gives the focus to its toggle.
  useEffect(() => {
    if (!narrow || !sidebarOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || modalOpen) return;
      const inDrawer = !!document.activeElement?.closest('#sidebar');
      setSidebarOpen(false);
      if (inDrawer) refocusAfterDrawer('.sidebar-toggle');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [narrow, sidebarOpen, modalOpen]);

  const go = useCallback(
    (r: Route | string) => {
      navigate(r);
      setPane('conversation');
      if (narrow) {
        // The closed drawer is inert: focus inside it would fall to <body>; the opened content takes it.
        const inDrawer = !!document.activeElement?.closest('#sidebar');
        setSidebarOpen(false);
        if (inDrawer) refocusAfterDrawer('#main');
      }
    },
    [navigate, narrow],
  );

  const focusSearch = useCallback(() => {
    setPane('search');
    if (narrow) setSidebarOpen(false);
    setSearchFocusRequest((n) => n + 1);
  }, [narrow]);

  useEffect(() => {
    if (searchFocusRequest === 0) return;
    const box = document.getElementById(SEARCH_BOX_ID);
    if (box instanceof HTMLInputElement) {
      box.focus();
      box.select();
    } else document.querySelector<HTMLElement>('section.search[aria-label="Search"]')?.focus();
  }, [searchFocusRequest]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || modalOpen) return;
      const target = e.target instanceof Element ? e.target : null;
      const typing = !!target?.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])');
      const chord = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing;
      if (!chord && !slash) return;
      e.preventDefault();
      focusSearch();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [modalOpen, focusSearch]);

  return { narrow, sidebarOpen, setSidebarOpen, pane, setPane, go, focusSearch };
}
