/**
 * Renders a result snippet as text with <mark> around matches — segments come from splitSnippet,
 * so nothing in a snippet is ever interpreted as HTML. Inline Markdown (`code`, **strong**,
 * *emphasis*) is shown as such instead of its raw delimiters (inlineParts), matches inside it stay
 * marked. A clipped end starts and ends at a word boundary (trimToWords). `InlineText` does the
 * same for a message preview without highlighting.
 */
import type { ReactNode } from 'react';
import { inlineParts, type InlinePart } from '../lib/inlineMarkdown';
import { splitSnippet, trimToWords } from '../lib/snippet';

/**
 * Consecutive parts of the same style become one element (one <code> box even when a match is
 * marked inside it), holding text and <mark>s.
 */
function renderParts(parts: readonly InlinePart[]): ReactNode[] {
  const out: ReactNode[] = [];
  for (let i = 0; i < parts.length; ) {
    const first = parts[i]!;
    let j = i;
    const children: ReactNode[] = [];
    while (j < parts.length && parts[j]!.code === first.code && parts[j]!.strong === first.strong && parts[j]!.em === first.em) {
      const p = parts[j]!;
      children.push(p.match ? <mark key={j}>{p.text}</mark> : p.text);
      j++;
    }
    let node: ReactNode = children;
    if (first.code) node = <code>{node}</code>;
    if (first.em) node = <em>{node}</em>;
    if (first.strong) node = <strong>{node}</strong>;
    out.push(<span key={i}>{node}</span>);
    i = j;
  }
  return out;
}

export function Snippet({ text, query }: { text: string; query: string }) {
  return <span className="snippet">{renderParts(inlineParts(splitSnippet(trimToWords(text), query)))}</span>;
}

/** A message preview (a result's context window) with its inline Markdown shown, not its delimiters. */
export function InlineText({ text }: { text: string }) {
  return <>{renderParts(inlineParts(text))}</>;
}
