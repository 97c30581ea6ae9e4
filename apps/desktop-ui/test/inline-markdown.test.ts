/**
 * Snippets and message previews show inline Markdown (`code`, **strong**, *emphasis*) instead of
 * its raw delimiters, the match highlighting survives inside and across it, and nothing in them is
 * ever HTML: hostile input inside backticks comes out as text (server-rendered with the same
 * component the app uses).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { InlineText, Snippet } from '../src/components/Snippet';
import { inlineParts, type InlinePart } from '../src/lib/inlineMarkdown';
import { splitSnippet } from '../src/lib/snippet';

/** Compact view of parts: text with flags as suffixes (m = match, c = code, s = strong, e = em). */
const view = (parts: InlinePart[]) => parts.map((p) => `${p.text}${p.match || p.code || p.strong || p.em ? `/${p.match ? 'm' : ''}${p.code ? 'c' : ''}${p.strong ? 's' : ''}${p.em ? 'e' : ''}` : ''}`);

describe('inlineParts', () => {
  test.each([
    ['plain text', 'set the timeout', ['set the timeout']],
    ['inline code', 'set `busy_timeout` to 5000', ['set ', 'busy_timeout/c', ' to 5000']],
    ['double backticks hold a backtick', 'use `` a`b `` here', ['use ', 'a`b/c', ' here']],
    ['strong and emphasis', '**bold** and *it* and __b2__ and _i2_', ['bold/s', ' and ', 'it/e', ' and ', 'b2/s', ' and ', 'i2/e']],
    ['emphasis inside strong', '***both***', ['both/se']],
    ['no emphasis inside code', '`*not* **this**`', ['*not* **this**/c']],
    ['snake_case is not emphasis', 'busy_timeout_ms and foo_bar_', ['busy_timeout_ms and foo_bar_']],
    ['a lone asterisk is text', '2 * 3 * 4 and a*', ['2 * 3 * 4 and a*']],
    ['an unmatched backtick (clipped snippet) stays', '…the `busy_timeout', ['…the `busy_timeout']],
    ['an empty code span is text', 'a `` b', ['a `` b']],
    ['unclosed strong stays', '**open and `code`', ['**open and ', 'code/c']],
    ['CJK text with code', '设置 `busy_timeout` 参数', ['设置 ', 'busy_timeout/c', ' 参数']],
  ])('%s', (_name, text, expected) => {
    expect(view(inlineParts(text))).toEqual(expected);
  });

  test.each([
    ['a match inside code', 'set `«busy_timeout»` to 5000', ['set ', 'busy_timeout/mc', ' to 5000']],
    ['a match covering part of the code', '`PRAGMA «busy_timeout»`', ['PRAGMA /c', 'busy_timeout/mc']],
    ['a match across the delimiter', '«`busy»_timeout`', ['busy/mc', '_timeout/c']],
    ['a match around strong', '«**fix**» it', ['fix/ms', ' it']],
    ['marks and text around', '…«pool» of `«db»` conns…', ['…', 'pool/m', ' of ', 'db/mc', ' conns…']],
  ])('keeps highlighting: %s', (_name, snippet, expected) => {
    expect(view(inlineParts(splitSnippet(snippet)))).toEqual(expected);
  });

  test('query-term highlighting (no markers) works inside code too', () => {
    expect(view(inlineParts(splitSnippet('raise `busy_timeout` now', 'busy_timeout')))).toEqual(['raise ', 'busy_timeout/mc', ' now']);
  });

  test('no character is lost or invented besides the delimiters', () => {
    const text = 'a `b` **c** *d* _e_ f_g `h';
    expect(inlineParts(text).map((p) => p.text).join('')).toBe('a b c d e f_g `h');
  });
});

describe('Snippet / InlineText render text only', () => {
  const html = (text: string, query = '') => renderToStaticMarkup(createElement(Snippet, { text, query }));

  test('code and marks are elements, delimiters are gone', () => {
    expect(html('set `«busy_timeout»` to **5000**')).toBe('<span class="snippet"><span>set </span><span><code><mark>busy_timeout</mark></code></span><span> to </span><span><strong>5000</strong></span></span>');
  });

  test('a match inside a code span keeps one code box around it', () => {
    expect(html('Set `PRAGMA «busy_timeout» = 5000` now')).toBe('<span class="snippet"><span>Set </span><span><code>PRAGMA <mark>busy_timeout</mark> = 5000</code></span><span> now</span></span>');
  });

  test.each([
    ['an img with onerror inside backticks', '`<img src=x onerror=alert(1)>` «here»'],
    ['a script inside strong', '**<script>alert(1)</script>** «x»'],
    ['markers of the HTML kind around hostile text', '<mark>`<img src=x onerror="alert(1)">`</mark>'],
    ['entity-encoded HTML in an HTML-marker snippet', '&lt;img src=x onerror=alert(1)&gt; <mark>x</mark>'],
  ])('hostile input stays text: %s', (_name, snippet) => {
    const out = html(snippet);
    expect(out).not.toMatch(/<img|<script|onerror=alert\(1\)>|<iframe/i);
    expect(out).toMatch(/&lt;(img|script)/);
  });

  test('a hostile message preview stays text and shows its code', () => {
    const out = renderToStaticMarkup(createElement(InlineText, { text: 'run `<img src=x onerror=alert(1)>` then *restart*' }));
    expect(out).toBe('<span>run </span><span><code>&lt;img src=x onerror=alert(1)&gt;</code></span><span> then </span><span><em>restart</em></span>');
  });
});
