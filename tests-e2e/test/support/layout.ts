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
