/**
 * A small accessible popover menu (role="menu") used for context menus and "…" buttons: opens at a
 * point, stays inside the viewport, focuses its first enabled item, moves with arrow keys /
 * Home / End, closes on Escape, Tab or a click outside, and hands focus back to the opener.
 */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';

export interface MenuItem {
  key: string;
  label: string;
  hint?: string;
  disabled?: boolean;
  /** Marks the current choice (e.g. the conversation's current project). */
  current?: boolean;
  danger?: boolean;
  onSelect: () => void;
}

export interface MenuSection {
  title?: string;
  items: MenuItem[];
}

export interface MenuProps {
  label: string;
  heading?: string;
  sections: MenuSection[];
  x: number;
  y: number;
  onClose: () => void;
  returnFocus?: HTMLElement | null;
}

export function Menu({ label, heading, sections, x, y, onClose, returnFocus }: MenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: x, top: y });

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    const margin = 8;
    const left = Math.max(margin, Math.min(x, window.innerWidth - r.width - margin));
    const top = Math.max(margin, Math.min(y, window.innerHeight - r.height - margin));
    setPos({ left, top });
    el.querySelector<HTMLButtonElement>('button[role="menuitem"]:not([disabled])')?.focus();
  }, [x, y]);

  // Latest callbacks in refs: parents re-render (events, polling) while the menu is open, and that
  // must neither re-run the outside-click wiring nor move focus back to the opener.
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  const returnFocusRef = useRef(returnFocus);
  returnFocusRef.current = returnFocus;

  useEffect(() => {
    const onDown = (e: PointerEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onCloseRef.current();
    };
    const onResize = () => onCloseRef.current();
    document.addEventListener('pointerdown', onDown, true);
    window.addEventListener('resize', onResize);
    return () => {
      document.removeEventListener('pointerdown', onDown, true);
      window.removeEventListener('resize', onResize);
      const back = returnFocusRef.current;
      if (back && document.contains(back)) back.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>('button[role="menuitem"]:not([disabled])') ?? []);
    const i = items.indexOf(document.activeElement as HTMLButtonElement);
    const focus = (n: number) => items[(n + items.length) % items.length]?.focus();
    switch (e.key) {
      case 'Escape':
      case 'Tab':
        e.preventDefault();
        e.stopPropagation();
        onClose();
        break;
      case 'ArrowDown':
        e.preventDefault();
        focus(i + 1);
        break;
      case 'ArrowUp':
        e.preventDefault();
        focus(i - 1);
        break;
      case 'Home':
        e.preventDefault();
        focus(0);
        break;
      case 'End':
        e.preventDefault();
        focus(items.length - 1);
        break;
    }
  };

  return (
    <div ref={ref} className="menu" role="menu" aria-label={label} style={{ left: pos.left, top: pos.top }} onKeyDown={onKeyDown}>
      {heading && (
        <div className="menu-heading" role="presentation">
          {heading}
        </div>
      )}
      {sections.map((s, si) =>
        s.items.length === 0 ? null : (
          <div key={si} role="group" aria-label={s.title} className="menu-section">
            {s.title && (
              <div className="menu-section-title" role="presentation">
                {s.title}
              </div>
            )}
            {s.items.map((it) => (
              <button
                key={it.key}
                type="button"
                role="menuitem"
                className={`menu-item${it.danger ? ' danger' : ''}${it.current ? ' current' : ''}`}
                disabled={it.disabled}
                aria-current={it.current ? 'true' : undefined}
                onClick={() => {
                  onClose();
                  it.onSelect();
                }}
              >
                <span className="menu-label">{it.label}</span>
                {it.hint && <span className="menu-hint">{it.hint}</span>}
              </button>
            ))}
          </div>
        ),
      )}
    </div>
  );
}
