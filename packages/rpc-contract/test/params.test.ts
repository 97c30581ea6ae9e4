/**
 * The params schemas of every method: strict objects whose every field is described and bounded
 * (what `rpc.discover` and docs/rpc.md promise), and — table-driven — the defaults a handler
 * receives and the input each schema refuses.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { isRpcMethodName, RPC_METHOD_NAMES, RPC_METHODS, type RpcMethodName } from '../src/index.js';

type Json = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Json>;
  items?: Json;
  anyOf?: Json[];
  enum?: unknown[];
  const?: unknown;
  additionalProperties?: unknown;
  maxLength?: number;
  maximum?: number;
  maxItems?: number;
  pattern?: string;
};

const inputSchema = (name: RpcMethodName): Json => z.toJSONSchema(RPC_METHODS[name].params, { io: 'input', unrepresentable: 'any' }) as Json;

/** Leaf schemas of a property (through nullable/union wrappers). */
function leaves(s: Json): Json[] {
  return s.anyOf ? s.anyOf.flatMap(leaves) : [s];
}

/** Why a leaf is unbounded, or null. Strings need a max length or a closed set; numbers a maximum; arrays a max size. */
function unbounded(s: Json, path: string): string[] {
  if (s.type === 'null' || s.type === 'boolean' || s.enum || s.const !== undefined) return [];
  if (s.type === 'string') return s.maxLength !== undefined ? [] : [`${path}: string without maxLength`];
  if (s.type === 'integer' || s.type === 'number') return s.maximum !== undefined ? [] : [`${path}: number without maximum`];
  if (s.type === 'array')
    return [...(s.maxItems !== undefined ? [] : [`${path}: array without maxItems`]), ...(s.items ? leaves(s.items).flatMap((i) => unbounded(i, `${path}[]`)) : [])];
  if (s.type === 'object') return Object.entries(s.properties ?? {}).flatMap(([k, v]) => leaves(v).flatMap((l) => unbounded(l, `${path}.${k}`)));
  return [`${path}: unexpected schema ${JSON.stringify(s).slice(0, 80)}`];
}

describe('the method table', () => {
  test('names are sorted, unique and look like group.method', () => {
    expect([...RPC_METHOD_NAMES]).toEqual([...new Set(RPC_METHOD_NAMES)].sort());
    expect(RPC_METHOD_NAMES.length).toBe(Object.keys(RPC_METHODS).length);
    for (const n of RPC_METHOD_NAMES) expect(n).toMatch(/^[a-z]+(\.[a-z_]+)+$/);
  });

  test.each([
    ['projects.list', true],
    ['search.session_search', true],
    ['toString', false],
    ['__proto__', false],
    ['projects.drop', false],
  ])('isRpcMethodName(%s) = %s', (name, known) => {
    expect(isRpcMethodName(name)).toBe(known);
  });
});

describe.each(RPC_METHOD_NAMES.map((n) => [n]))('%s params', (name) => {
  const schema = inputSchema(name);

  test('is a strict object with a summary', () => {
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(RPC_METHODS[name].summary.length).toBeGreaterThan(10);
  });

  test('describes every field', () => {
    const undescribed = Object.entries(schema.properties ?? {})
      .filter(([, p]) => !p.description && !leaves(p).some((l) => l.description))
      .map(([k]) => k);
    expect(undescribed).toEqual([]);
  });

  test('bounds every field', () => {
    expect(unbounded(schema, name)).toEqual([]);
  });

  test('refuses an unknown field', () => {
    expect(RPC_METHODS[name].params.safeParse({ surelyNotAField: 1 }).success).toBe(false);
  });
});

const parse = (name: RpcMethodName, input: unknown) => RPC_METHODS[name].params.safeParse(input);

describe('defaults a handler receives', () => {
  test.each<[RpcMethodName, unknown, Record<string, unknown>]>([
    ['projects.list', {}, { includeArchived: false }],
    ['projects.archive', { projectId: 'p_1' }, { projectId: 'p_1', archived: true }],
    ['projects.discovered', {}, { limit: 50 }],
    ['session.list', {}, { includeArchived: false, includeHidden: false, limit: 200, offset: 0 }],
    ['session.messages', { sessionId: 's' }, { sessionId: 's', afterId: 0, limit: 1000, includeHidden: false }],
    ['session.resume', { sessionId: 's' }, { sessionId: 's', limit: 1000 }],
    ['session.page', { sessionId: 's' }, { sessionId: 's', limit: 200 }],
    ['conversations.list', { projectId: null }, { projectId: null, limit: 50 }],
    ['search.session_search', { sessionId: 's' }, { sessionId: 's', search_mode: 'hybrid', limit: 8, sort: 'relevance', window: 2, conversation: false }],
    ['index.run', {}, { wait: false }],
    ['chat.send', { sessionId: 's', content: 'hi' }, { sessionId: 's', content: 'hi', wait: false }],
  ])('%s %j → %j', (name, input, output) => {
    const r = parse(name, input);
    expect(r.success).toBe(true);
    expect(r.data).toEqual(output);
  });
});

describe('input each schema refuses', () => {
  test.each<[string, RpcMethodName, unknown]>([
    ['empty project name', 'projects.create', { name: '' }],
    ['121-character project name', 'projects.create', { name: 'x'.repeat(121) }],
    ['51 folders', 'projects.create', { name: 'a', folders: Array.from({ length: 51 }, (_, i) => `/f${i}`) }],
    ['a folder path of 4097 characters', 'projects.folders.add', { projectId: 'p', path: `/${'a'.repeat(4096)}` }],
    ['a session id with a space', 'session.create', { sessionId: 'bad id' }],
    ['1001 first messages', 'session.create', { messages: Array.from({ length: 1001 }, () => ({ role: 'user', content: 'x' })) }],
    ['an unknown role', 'session.append', { sessionId: 's', role: 'robot', content: 'x' }],
    ['message text over 1 MiB', 'session.append', { sessionId: 's', role: 'user', content: 'x'.repeat(1_048_577) }],
    ['message id 0', 'session.edit', { messageId: 0, content: 'x' }],
    ['a fractional message id', 'session.delete', { messageId: 1.5 }],
    ['projectId omitted (removal must be explicit)', 'session.project.set', { sessionId: 's' }],
    ['two page positions', 'session.page', { sessionId: 's', at: 'oldest', beforeId: 3 }],
    ['page limit 1001', 'session.page', { sessionId: 's', limit: 1001 }],
    ['conversations.list without projectId', 'conversations.list', {}],
    ['a project_id search argument (scope is never an argument)', 'search.session_search', { sessionId: 's', project_id: 'p' }],
    ['search limit 51', 'search.session_search', { sessionId: 's', limit: 51 }],
    ['search window 21', 'search.session_search', { sessionId: 's', window: 21 }],
    ['an unknown search mode', 'search.session_search', { sessionId: 's', search_mode: 'vector' }],
    ['chat content that is only whitespace', 'chat.send', { sessionId: 's', content: '   ' }],
    ['chat content over 100000 characters', 'chat.send', { sessionId: 's', content: 'x'.repeat(100_001) }],
    ['an empty import', 'import.jsonl', { text: '' }],
    ['session list offset over 1000000', 'session.list', { offset: 1_000_001 }],
    ['a title over 500 characters', 'session.title', { sessionId: 's', title: 'x'.repeat(501) }],
  ])('%s (%s)', (_why, name, input) => {
    expect(parse(name, input).success).toBe(false);
  });
});
