/**
 * Renders a result snippet as text with <mark> around matches — segments come from splitSnippet,
 * so nothing in a snippet is ever interpreted as HTML. A clipped end starts and ends at a word
 * boundary (trimToWords).
 */
import { splitSnippet, trimToWords } from '../lib/snippet';

export function Snippet({ text, query }: { text: string; query: string }) {
  return (
    <span className="snippet">
      {splitSnippet(trimToWords(text), query).map((s, i) => (s.match ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}
    </span>
  );
}
