/**
 * Layout checks in the page: nothing makes the document (or one of the app's main regions) wider
 * than the viewport. Horizontal scrolling *inside* a code block is fine; the page itself must not
 * need it.
 */
import type { Page } from 'playwright-core';

export interface OverflowReport {
  viewport: number;
  documentWidth: number;
  /** Visible elements whose right edge is past the viewport (selector-ish description + right edge). */
  offenders: string[];
}

export async function horizontalOverflow(page: Page): Promise<OverflowReport> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
    const offenders: string[] = [];
    // An element is "shown" if it has a box and no ancestor hides it (closed drawer = inert/aria-hidden,
    // or clipped by an ancestor that scrolls horizontally on purpose, like <pre>).
    const clippedByScroller = (el: Element) => {
      for (let a = el.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && a.getBoundingClientRect().right <= vw + 1) return true;
      }
      return false;
    };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      if (el.closest('[inert], [aria-hidden="true"], .sr-only')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none') continue;
      if (r.right > vw + 1 && !clippedByScroller(el)) offenders.push(`${describe(el)} right=${Math.round(r.right)}`);
    }
    return {
      viewport: vw,
      documentWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
      offenders: offenders.slice(0, 20),
    };
  });
}

/**
 * How far the document is scrolled, and by how much it is taller than the viewport: both must be 0.
 * The page never scrolls (its regions do), so a document taller than the viewport can still be
 * scrolled by scrollIntoView and then hides the top bar with no way back.
 */
export async function pageScroll(page: Page): Promise<{ scrollTop: number; overflow: number }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return { scrollTop: root.scrollTop, overflow: Math.max(0, root.scrollHeight - root.clientHeight) };
  });
}
