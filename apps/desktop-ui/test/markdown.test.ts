/**
 * Message Markdown is rendered safely (server-rendered here with react-dom/server, the same
 * components the app uses): no raw HTML, no script-capable links, images never fetched, recall://
 * links (bare or in Markdown) open in the app, code blocks get a copy button, and very long
 * messages start collapsed to a bounded preview.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { isLong, MarkdownText, MessageBody, safeHref } from '../src/components/MessageBody';

const html = (text: string) => renderToStaticMarkup(createElement(MarkdownText, { text }));

describe('safeHref', () => {
  test.each([
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    ['#/s/s1', '#/s/s1'],
    ['recall://session/s1#m2', '#/s/s1/m/2'],
    ['javascript:alert(1)', null],
    [' JavaScript:alert(1)', null],
    ['data:text/html,<script>alert(1)</script>', null],
    ['vbscript:msgbox', null],
    ['/etc/passwd', null],
  ])('%s → %s', (url, expected) => {
    expect(safeHref(url)).toBe(expected);
  });
});

describe('MarkdownText', () => {
  test.each([
    // Raw HTML is shown as the text it is, never rendered and never dropped: skipping it hid
    // `Vec<String>` as "Vec" and a whole message that began with an HTML block.
    ['raw HTML is shown as text, not rendered', 'hi <script>alert(1)</script> <img src=x onerror=alert(1)> <b>bold</b>', ['<p>hi &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &lt;b&gt;bold&lt;/b&gt;</p>'], ['<script', '<img', '<b>']],
    ['a generic type outside backticks keeps its parameter', 'Return a Vec<String> here', ['Return a Vec&lt;String&gt; here'], ['<String>']],
    ['a message that opens with an HTML block keeps its text', '<script>alert(1)</script> [bad](javascript:alert(1)) needle-1500', ['needle-1500', '&lt;script&gt;'], ['<script', 'href="javascript']],
    ['an HTML block between paragraphs', 'before\n\n<div class="x">\ninside\n</div>\n\nafter', ['<p>before</p>', '&lt;div class=&quot;x&quot;&gt;', 'inside', '<p>after</p>'], ['<div class="x">']],
    ['javascript: links lose their link', '[click](javascript:alert(1))', ['<span class="unsafe-link">click</span>'], ['href="javascript', '<a ']],
    ['http links open outside', '[docs](https://example.com)', ['href="https://example.com"', 'rel="noopener noreferrer nofollow"'], []],
    ['bare recall links open the anchor', 'see recall://session/s1#m2. done', ['href="#/s/s1/m/2"', '>recall://session/s1#m2</a>. done'], []],
    ['images are links, never fetched', '![chart](https://example.com/x.png)', ['[image: chart]'], ['<img']],
    ['code fences are monospace blocks with a copy button', '```rust\nfn main() {}\n```', ['<div class="code-block">', 'aria-label="Copy code"', '<pre><code class="language-rust">fn main() {}'], []],
    ['GFM tables and strikethrough', '| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~', ['<table>', '<td>1</td>', '<del>old</del>'], []],
    ['inline code and lists', '- `x`\n- y', ['<li><code>x</code></li>'], []],
  ])('%s', (_name, text, present, absent) => {
    const out = html(text);
    for (const p of present) expect(out).toContain(p);
    for (const a of absent) expect(out).not.toContain(a);
  });
});

describe('MessageBody: very long messages start collapsed', () => {
  test.each([
    ['a 200,000-character line', 'x'.repeat(200_000), true],
    ['300 short lines', Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n'), true],
    ['an ordinary answer', 'Use an `Option<usize>`:\n\n```rust\nlet x = 1;\n```', false],
  ])('%s', (_name, text, long) => {
    expect(isLong(text)).toBe(long);
    const out = renderToStaticMarkup(createElement(MessageBody, { text }));
    if (long) {
      expect(out).toContain('Show all (');
      expect(out.length).toBeLessThan(3000);
    } else expect(out).not.toContain('Show all');
  });
});
