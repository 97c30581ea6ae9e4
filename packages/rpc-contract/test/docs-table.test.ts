/**
 * docs/rpc.md's method tables agree with the contract: every contract method has exactly one row,
 * no row names a method the contract does not have, and each row's params column lists exactly the
 * schema's fields, with `?` on exactly the ones a client may omit (optional or defaulted). The
 * prose around them (bounds, defaults, notes) stays hand-written; the names and optionality cannot
 * drift. The parser is tested on its own first, so a broken parser cannot pass the docs silently.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { RPC_METHOD_NAMES, RPC_METHODS, type RpcMethodName } from '../src/index.js';

const doc = readFileSync(new URL('../../../docs/rpc.md', import.meta.url), 'utf8');

/** Splits a Markdown table row into cells; `\|` is an escaped pipe inside a cell. */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** Splits `text` at top-level commas (outside brackets and quotes). */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

export interface DocParam {
  name: string;
  optional: boolean;
}

/**
 * The params a row documents: the first code span of the params cell that is an object literal,
 * `{ a, b?: type = default, c (bounds) }` → [{a, required}, {b, optional}, {c, required}];
 * "same as `m`" → null plus the method it refers to.
 */
export function docParams(cell: string): { params: DocParam[] } | { sameAs: string } {
  const same = /^same as `([^`]+)`/.exec(cell);
  if (same) return { sameAs: same[1]! };
  const span = /`(\{[^`]*\})`/.exec(cell);
  if (!span) throw new Error(`no { … } params in ${JSON.stringify(cell)}`);
  const body = span[1]!.trim().slice(1, -1);
  return {
    params: topLevel(body).map((part) => {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(\?)?/.exec(part);
      if (!m) throw new Error(`cannot read a field name in ${JSON.stringify(part)}`);
      return { name: m[1]!, optional: m[2] === '?' };
    }),
  };
}

/** Rows of every table headed `| method | params | …`: method name → params cell (duplicates kept). */
function methodRows(markdown: string): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  let inMethodTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.trim().startsWith('|')) {
      inMethodTable = false;
      continue;
    }
    const c = cells(line);
    if (c[0] === 'method' && c[1] === 'params') {
      inMethodTable = true;
      continue;
    }
    if (!inMethodTable || /^-+$/.test(c[0]!)) continue;
    const name = /^`([^`]+)`$/.exec(c[0]!);
    if (!name) throw new Error(`method row without a \`name\`: ${line.slice(0, 80)}`);
    rows.push([name[1]!, c[1]!]);
  }
  return rows;
}

/** What the contract says: every field, optional when a client may omit it. */
function contractParams(name: RpcMethodName): DocParam[] {
  const schema = z.toJSONSchema(RPC_METHODS[name].params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {}).map((k) => ({ name: k, optional: !required.has(k) }));
}

const byName = (a: DocParam, b: DocParam) => a.name.localeCompare(b.name);

describe('the docs parser', () => {
  test.each<[string, DocParam[]]>([
    ['`{}`', []],
    ['`{ includeArchived?: boolean = false }`', [{ name: 'includeArchived', optional: true }]],
    [
      '`{ name (1-120), description? (≤2000), color? ("#rgb[a]"/"#rrggbb[aa]" or a colour name), folders?: string[] (≤50) }`',
      [
        { name: 'name', optional: false },
        { name: 'description', optional: true },
        { name: 'color', optional: true },
        { name: 'folders', optional: true },
      ],
    ],
    [
      '`{ sessionId, at?: "oldest"|"newest", limit?: 1-1000 = 200 }` (at most one position; none = `at: "newest"`)',
      [
        { name: 'sessionId', optional: false },
        { name: 'at', optional: true },
        { name: 'limit', optional: true },
      ],
    ],
    [
      '`{ title: string|null (≤500), x?: { a, b } }`',
      [
        { name: 'title', optional: false },
        { name: 'x', optional: true },
      ],
    ],
  ])('reads %s', (cell, expected) => {
    expect(docParams(cell)).toEqual({ params: expected });
  });

  test('follows "same as"', () => {
    expect(docParams('same as `session.cwd.set`')).toEqual({ sameAs: 'session.cwd.set' });
  });

  test('refuses a cell without params', () => {
    expect(() => docParams('see below')).toThrow(/no \{/);
  });

  test('finds rows only in method tables, with escaped pipes kept inside a cell', () => {
    const md = [
      '| type | emitted by |',
      '|---|---|',
      '| `projects.changed` | x |',
      '',
      '| method | params | result | notes |',
      '|---|---|---|---|',
      '| `a.b` | `{ x: string\\|null }` | r | n |',
    ].join('\n');
    expect(methodRows(md)).toEqual([['a.b', '`{ x: string|null }`']]);
  });
});

describe('docs/rpc.md method tables = the contract', () => {
  const rows = methodRows(doc);
  const documented = new Map<string, string>();
  for (const [name, cell] of rows) documented.set(name, cell);

  test('one row per method, none twice, none the contract lacks', () => {
    expect(rows.length).toBe(documented.size);
    expect([...documented.keys()].sort()).toEqual([...RPC_METHOD_NAMES]);
  });

  test.each(RPC_METHOD_NAMES.map((n) => [n]))('%s: documented params = contract params', (name) => {
    const cell = documented.get(name);
    expect(cell, `${name} has no row in docs/rpc.md`).toBeDefined();
    let parsed = docParams(cell!);
    if ('sameAs' in parsed) {
      expect(RPC_METHODS[parsed.sameAs as RpcMethodName]?.params, `${name} is "same as" ${parsed.sameAs}`).toBe(RPC_METHODS[name].params);
      parsed = docParams(documented.get(parsed.sameAs)!);
    }
    if ('sameAs' in parsed) throw new Error('"same as" chains are not supported');
    expect([...parsed.params].sort(byName)).toEqual(contractParams(name).sort(byName));
  });
});
