/**
 * The project-wide trusted context (`{ projectId }`, used by `recall mcp --project/--cwd` for an
 * external agent whose transcript Recall does not hold): every shape answers from that project
 * only — with no session excluded as the caller's own — an unknown project is a typed error, and
 * a project id smuggled into the arguments is still refused. Every result (each shape, errors
 * included) validates against the published output schema.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { appendMessages, createDelegation, createProject, createSession } from '@recall/store';
import { sessionSearchResultSchema } from '@recall/rpc-contract';
import { createSessionSearchTool, sessionSearchOutputJsonSchema, type SessionSearchResult } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

function world() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const p1 = createSession(db, { projectId: p.id, title: 'P deploy notes' });
  const [m1] = appendMessages(db, p1.id, [
    { role: 'user', content: 'The deploy uses blue-green with a 5 minute bake.' },
    { role: 'assistant', content: 'Noted: blue-green, bake 5 minutes.' },
  ]).messages;
  const p2 = createSession(db, { projectId: p.id, title: 'P latest' });
  appendMessages(db, p2.id, [{ role: 'user', content: 'deploy rollback happened on friday' }]);
  const hiddenChild = createDelegation(db, p1.id, { title: 'subagent' });
  appendMessages(db, hiddenChild.id, [{ role: 'assistant', content: 'deploy subagent scratch' }]);
  const q1 = createSession(db, { projectId: q.id, title: 'Q deploy' });
  appendMessages(db, q1.id, [{ role: 'user', content: 'Q deploy uses canary releases' }]);
  const nul = createSession(db, { title: 'no project deploy' });
  appendMessages(db, nul.id, [{ role: 'user', content: 'deploy without a project' }]);
  return { db, p, q, p1, p2, q1, hiddenChild, m1: m1!, tool: createSessionSearchTool({ db }) };
}

const sessionsOf = (r: SessionSearchResult) => [...new Set(r.results.flatMap((x) => [x.session_id]))].sort();

describe('project-wide caller ({ projectId })', () => {
  test('discover finds every visible conversation of the project (none is the caller’s own), never another project’s', async () => {
    const { tool, p, p1, p2 } = world();
    const r = await tool.execute({ query: 'deploy', search_mode: 'keyword', limit: 20 }, { projectId: p.id });
    expect(r.error).toBeUndefined();
    expect(r.scope).toEqual({ kind: 'project', project_id: p.id });
    expect(sessionsOf(r)).toEqual([p1.id, p2.id].sort());
  });

  test.each([
    ['browse', {}],
    ['read', 'p1'],
    ['scroll', 'm1'],
  ] as const)('%s stays in the project', async (shape, arg) => {
    const { tool, p, q, p1, p2, q1, m1 } = world();
    const args = arg === 'p1' ? { session_id: p1.id } : arg === 'm1' ? { around_message_id: m1.id } : arg;
    const r = await tool.execute(args, { projectId: p.id });
    expect(r.error).toBeUndefined();
    expect(r.shape).toBe(shape);
    expect(r.results.length).toBeGreaterThan(0);
    for (const item of r.results) expect([p1.id, p2.id]).toContain(item.session_id);
    if (shape === 'browse') expect(r.results.every((x) => x.is_current_session === false)).toBe(true);
    // The other project's session is not readable from here.
    const foreign = await tool.execute({ session_id: q1.id }, { projectId: p.id });
    expect(foreign.error?.code).toBe('not_found');
    expect(q.id).not.toBe(p.id);
  });

  test.each([
    ['unknown project', { projectId: 'p_missing' }, 'caller_project_not_found'],
    ['empty project id', { projectId: '' }, 'caller_session_not_found'],
  ] as const)('%s is a typed error', async (_name, context, code) => {
    const { tool } = world();
    const r = await tool.execute({ query: 'deploy' }, context);
    expect(r.error?.code).toBe(code);
    expect(r.results).toEqual([]);
    expect(sessionSearchResultSchema.safeParse(r).success).toBe(true);
  });

  test('the model still cannot widen the scope with an argument', async () => {
    const { tool, p, q } = world();
    const r = await tool.execute({ query: 'canary', project_id: q.id }, { projectId: p.id });
    expect(r.error?.code).toBe('invalid_arguments');
    const plain = await tool.execute({ query: 'canary', search_mode: 'keyword' }, { projectId: p.id });
    expect(plain.results).toEqual([]);
  });

  test('random queries from a project-wide caller never return another project, a hidden child or a project-less session', async () => {
    const { tool, p, p1, p2 } = world();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom('deploy', 'canary', 'project', 'subagent', 'blue-green', 'friday'), fc.string({ maxLength: 20 })), async (query) => {
        const r = await tool.execute({ query, search_mode: 'keyword', limit: 50 }, { projectId: p.id });
        for (const item of r.results) {
          expect([p1.id, p2.id]).toContain(item.session_id);
          for (const w of item.window) expect(w.text ?? '').not.toMatch(/canary|subagent|without a project/);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('output schema', () => {
  test.each([
    ['discover', { query: 'deploy' }],
    ['browse', {}],
    ['read', 'read'],
    ['scroll', 'scroll'],
    ['invalid arguments', { limit: 0 }],
  ] as const)('a %s result validates', async (_name, arg) => {
    const { tool, p, p1, m1 } = world();
    const args = arg === 'read' ? { session_id: p1.id } : arg === 'scroll' ? { around_message_id: m1.id } : arg;
    const r = await tool.execute(args, { projectId: p.id });
    const parsed = sessionSearchResultSchema.safeParse(r);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  test('the JSON Schema is an object schema with the envelope fields required', () => {
    const schema = sessionSearchOutputJsonSchema();
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(expect.arrayContaining(['shape', 'used_mode', 'scope', 'results', 'notes', 'truncated']));
    expect(schema.$schema).toBeUndefined();
  });
});
