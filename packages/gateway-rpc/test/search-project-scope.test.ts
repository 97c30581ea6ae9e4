/**
 * `search.session_search` with `projectId` (the desktop's project-wide search, the scope
 * `recall mcp --project` uses) behind a real gateway with the real tool: every conversation of that
 * project is searched, nothing of any other project ever comes back — checked as a fast-check
 * property over random projects, conversations, words and queries — and the params admit exactly
 * one of `sessionId` / `projectId`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, rpc, rpcError, startTestGateway, type TestGateway } from './helpers.js';

afterAll(cleanup);

/** Words shared by every project, so a leak would match. */
const WORDS = ['pipeline', 'deploy', 'canary', '部署', '流水线', 'zstd', 'timeout', 'retry'];

describe('search.session_search by projectId', () => {
  let gw: TestGateway;
  const projects: string[] = [];
  const sessionsOf = new Map<string, Set<string>>();

  beforeAll(async () => {
    gw = await startTestGateway({ searchTool: undefined });
    for (let i = 0; i < 3; i++) {
      const p = (await rpc(gw, 'projects.create', { name: `P${i}`, folders: [`/work/p${i}`] })).id as string;
      projects.push(p);
      sessionsOf.set(p, new Set());
    }
    // A conversation without a project must never show up in a project search either.
    await rpc(gw, 'session.create', { title: 'no project', messages: [{ role: 'user', content: WORDS.join(' ') }] });
  });

  test('searches the whole project (no conversation needed) and only it', async () => {
    const [p0, p1] = projects as [string, string];
    const a = (await rpc(gw, 'session.create', { projectId: p0, title: 'in P0', messages: [{ role: 'user', content: 'the deploy pipeline of P0' }] })).id;
    const b = (await rpc(gw, 'session.create', { projectId: p1, title: 'in P1', messages: [{ role: 'user', content: 'the deploy pipeline of P1' }] })).id;
    sessionsOf.get(p0)!.add(a);
    sessionsOf.get(p1)!.add(b);
    const result = await rpc(gw, 'search.session_search', { projectId: p0, query: 'deploy pipeline' });
    expect(result.scope).toEqual({ kind: 'project', project_id: p0 });
    expect([...new Set(result.results.map((r: { session_id: string }) => r.session_id))]).toEqual([a]);
  });

  test.each([
    ['neither', { query: 'x' }, -32602],
    ['both', { sessionId: 's_x', projectId: 'p_x', query: 'x' }, -32602],
    ['a tool project_id argument', { projectId: 'p_x', project_id: 'p_y', query: 'x' }, -32602],
  ])('refuses %s', async (_name, params, code) => {
    expect((await rpcError(gw, 'search.session_search', params)).code).toBe(code);
  });

  test('an unknown project is project_not_found', async () => {
    const err = await rpcError(gw, 'search.session_search', { projectId: 'p_missing', query: 'x' });
    expect(err.data?.code ?? err.message).toMatch(/project_not_found|not found/i);
  });

  test('property: no result, window or count from another project', async () => {
    const words = fc.subarray(WORDS, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ project: fc.nat({ max: 2 }), text: words }), { minLength: 1, maxLength: 4 }),
        fc.nat({ max: 2 }),
        fc.constantFrom(...WORDS),
        fc.constantFrom('keyword', 'hybrid'),
        async (added, target, query, mode) => {
          const fresh: Array<{ id: string; project: number; text: string }> = [];
          for (const s of added) {
            const p = projects[s.project]!;
            const id = (await rpc(gw, 'session.create', { projectId: p, messages: [{ role: 'user', content: s.text }] })).id as string;
            sessionsOf.get(p)!.add(id);
            fresh.push({ id, ...s });
          }
          const p = projects[target]!;
          const mine = sessionsOf.get(p)!;
          const result = await rpc(gw, 'search.session_search', { projectId: p, query, search_mode: mode, limit: 50, window: 3 });
          expect(result.scope.project_id).toBe(p);
          const found = new Set((result.results as Array<{ session_id: string }>).map((h) => h.session_id));
          for (const id of found) expect(mine.has(id)).toBe(true);
          // And the search is the whole project: this run's conversations of it holding the word are found.
          if (/^[a-z]+$/.test(query)) {
            for (const s of fresh) if (s.project === target && s.text.split(' ').includes(query)) expect(found.has(s.id)).toBe(true);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
