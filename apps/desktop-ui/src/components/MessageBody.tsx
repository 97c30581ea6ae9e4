/**
 * A message's text as people wrote it: Markdown (GitHub flavour: tables, task lists, strikethrough,
 * autolinks) through react-markdown, rendered safely — raw HTML is never rendered but shown as the
 * text it is (skipping it hid `Vec<String>` as "Vec" and whole messages that began with a tag), links
 * keep only http(s), mailto, in-page and recall:// targets (recall links, also bare ones in the
 * text, open the anchor in the app; `javascript:`, `data:` and everything else lose their link),
 * images are shown as links instead of being fetched. Code blocks are monospace with a copy
 * button. Very long messages start collapsed to a plain-text preview: laying out a 200,000-character
 * line took seconds, so the whole text is only rendered on request (and then as plain text, since
 * no one reads Markdown at that size).
 */
import { memo, useState, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { hashForLink, linkify } from '../lib/links';

/** Longer than this (characters or lines) starts collapsed. */
export const COLLAPSE_CHARS = 8000;
export const COLLAPSE_LINES = 120;
/** What the collapsed preview shows. */
const PREVIEW_CHARS = 1500;
/** Expanded text longer than this is shown as plain text, not parsed as Markdown. */
const MARKDOWN_MAX_CHARS = 60_000;

/** The href a Markdown link may keep, or null to render its text without a link. */
export function safeHref(url: string): string | null {
  const u = url.trim();
  if (/^recall:\/\//i.test(u)) return hashForLink(u);
  if (/^(https?:\/\/|mailto:)/i.test(u)) return u;
  if (u.startsWith('#')) return u;
  return null;
}

export function isLong(text: string): boolean {
  if (text.length > COLLAPSE_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines <= COLLAPSE_LINES; i = text.indexOf('\n', i + 1)) lines++;
  return lines > COLLAPSE_LINES;
}

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  children?: MdNode[];
}

/** remark plugin: bare recall:// links in text become links (GFM only autolinks http/www). */
function remarkRecallLinks() {
  const walk = (node: MdNode) => {
    if (!node.children || node.type === 'link' || node.type === 'linkReference') return;
    const out: MdNode[] = [];
    for (const child of node.children) {
      if (child.type === 'text' && child.value && /recall:\/\//i.test(child.value)) {
        for (const part of linkify(child.value)) {
          out.push(part.kind === 'text' ? { type: 'text', value: part.text } : { type: 'link', url: part.text, children: [{ type: 'text', value: part.text }] });
        }
      } else {
        walk(child);
        out.push(child);
      }
    }
    node.children = out;
  };
  return (tree: MdNode) => walk(tree);
}

/**
 * remark plugin: raw HTML (inline tags and HTML blocks) becomes literal text, which React escapes.
 * In chat history `<String>` or `<div>` is something a person typed, not markup to run or to hide.
 * A block keeps its own paragraph so it does not run into its neighbours.
 */
function remarkHtmlAsText() {
  const walk = (node: MdNode, inline: boolean) => {
    if (!node.children) return;
    const childrenInline = inline || node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell';
    node.children = node.children.map((child) => {
      if (child.type !== 'html') {
        walk(child, childrenInline);
        return child;
      }
      const text: MdNode = { type: 'text', value: child.value ?? '' };
      return childrenInline ? text : { type: 'paragraph', children: [text] };
    });
  };
  return (tree: MdNode) => walk(tree, false);
}

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node && typeof node === 'object' && 'props' in node) return textOf((node.props as { children?: ReactNode }).children);
  return '';
}

function CodeBlock({ children }: { children?: ReactNode }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(textOf(children).replace(/\n$/, ''));
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
    setTimeout(() => setCopied(null), 2000);
  };
  return (
    <div className="code-block">
      <button type="button" className="copy-code" onClick={() => void copy()} aria-label="Copy code">
        {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
      <pre>{children}</pre>
    </div>
  );
}

const components: Components = {
  a: ({ href, children }) => {
    const safe = href ? safeHref(href) : null;
    if (!safe) return <span className="unsafe-link">{children}</span>;
    const external = /^(https?:|mailto:)/i.test(safe);
    return (
      <a href={safe} {...(external ? { target: '_blank', rel: 'noopener noreferrer nofollow' } : {})}>
        {children}
      </a>
    );
  },
  // Never fetched: a remote image in history would call out to its host.
  img: ({ src, alt }) => {
    const safe = typeof src === 'string' ? safeHref(src) : null;
    const label = `image: ${alt || (typeof src === 'string' ? src : '')}`;
    return safe && /^https?:/i.test(safe) ? (
      <a href={safe} target="_blank" rel="noopener noreferrer nofollow" className="md-image">
        [{label}]
      </a>
    ) : (
      <span className="md-image">[{label}]</span>
    );
  },
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
};

// Keep every URL as written here; `components.a` decides what may stay a link.
const keepUrl = (url: string) => url;

export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown remarkPlugins={[remarkGfm, remarkHtmlAsText, remarkRecallLinks]} skipHtml urlTransform={keepUrl} components={components}>
      {text}
    </Markdown>
  );
});

export function MessageBody({ text }: { text: string }) {
  const long = isLong(text);
  const [open, setOpen] = useState(false);
  if (!long) {
    return (
      <div className="msg-body md">
        <MarkdownText text={text} />
      </div>
    );
  }
  const size = `${text.length.toLocaleString()} characters`;
  return (
    <div className={`msg-body long${open ? ' open' : ''}`}>
      {open ? (
        text.length > MARKDOWN_MAX_CHARS ? (
          <pre className="plain-long">{text}</pre>
        ) : (
          <div className="md">
            <MarkdownText text={text} />
          </div>
        )
      ) : (
        <p className="preview">{text.slice(0, PREVIEW_CHARS)}…</p>
      )}
      <button type="button" className="btn small" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
        {open ? 'Collapse' : `Show all (${size})`}
      </button>
    </div>
  );
}
