/**
 * `search.session_search` with the real tool (@recall/search-tool, keyword-only in stage A) behind a
 * real gateway: the scope is the current session's stored project, re-read on every call — so a move
 * done through `session.project.set` is effective for the very next search, and a directory change
 * never is. Results come back verbatim in the tool's snake_case contract.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { cleanup, rpc, rpcError, startTestGateway, type TestGateway } from './helpers.js';

afterEach(cleanup);


interface World {
  p: string;
  q: string;
  /** P's old conversation that mentions the pipeline. */
  oldP: string;
  /** Q's conversation with the same words. */
  oldQ: string;
  /** The conversation the "model" is running in, in P. */
  current: string;
}

async function world(gw: TestGateway): Promise<World> {
  const p = (await rpc(gw, 'projects.create', { name: 'P', folders: ['/work/p'] })).id;
  const q = (await rpc(gw, 'projects.create', { name: 'Q', folders: ['/work/q'] })).id;
  const oldP = (
    await rpc(gw, 'session.create', {
      projectId: p,
      title: 'pipeline in P',
      messages: [
        { role: 'user', content: 'How do we configure the deploy pipeline? 部署流水线怎么配置？' },
        { role: 'assistant', content: 'The deploy pipeline of P uses blue-green releases.' },
      ],
    })
  ).id;
  const oldQ = (
    await rpc(gw, 'session.create', {
      projectId: q,
      title: 'pipeline in Q',
      messages: [{ role: 'user', content: 'The deploy pipeline of Q is a canary rollout. 部署流水线' }],
    })
  ).id;
  const current = (await rpc(gw, 'session.create', { projectId: p, cwd: '/work/p', messages: [{ role: 'user', content: 'what did we decide?' }] })).id;
  return { p, q, oldP, oldQ, current };
}

function sessionsOf(result: any): string[] {
  return [...new Set<string>(result.results.map((r: any) => r.session_id))].sort();
}

describe('search.session_search with the real tool', () => {
  let gw: TestGateway;
  let w: World;
  beforeEach(async () => {
    gw = await startTestGateway({ searchTool: undefined });
    w = await world(gw);
  });

  test('finds the original text of its own project only, keyword-only in stage A', async () => {
    const result = await rpc(gw, 'search.session_search', { sessionId: w.current, query: 'deploy pipeline' });
    expect(result).toMatchObject({ shape: 'discover', requested_mode: 'hybrid', used_mode: 'keyword', semantic_status: 'disabled', scope: { kind: 'project', project_id: w.p } });
    expect(sessionsOf(result)).toEqual([w.oldP]);
    const hit = result.results[0];
    expect(hit.session_id).toBe(w.oldP);
    // The title also says "pipeline", so the anchor may come from the title match.
    expect(['keyword', 'title']).toContain(hit.match_source);
    expect(Number.isInteger(hit.message_id)).toBe(true);
    expect(hit.link).toContain(w.oldP);
  });

  test('Chinese queries are scoped the same way', async () => {
    const result = await rpc(gw, 'search.session_search', { sessionId: w.current, query: '部署流水线', search_mode: 'keyword' });
    expect(sessionsOf(result)).toEqual([w.oldP]);
  });

  test('after session.project.set the next search uses the new project; cwd changes never do', async () => {
    await rpc(gw, 'session.cwd.set', { sessionId: w.current, cwd: '/work/q' });
    expect(sessionsOf(await rpc(gw, 'search.session_search', { sessionId: w.current, query: 'pipeline' }))).toEqual([w.oldP]);

    await rpc(gw, 'session.project.set', { sessionId: w.current, projectId: w.q });
    const after = await rpc(gw, 'search.session_search', { sessionId: w.current, query: 'pipeline' });
    expect(after.scope).toEqual({ kind: 'project', project_id: w.q });
    expect(sessionsOf(after)).toEqual([w.oldQ]);
  });

  test('moving an old conversation moves what other sessions of each project can recall', async () => {
    await rpc(gw, 'session.project.set', { sessionId: w.oldP, projectId: w.q });
    expect(sessionsOf(await rpc(gw, 'search.session_search', { sessionId: w.current, query: 'pipeline' }))).toEqual([]);
    expect(sessionsOf(await rpc(gw, 'search.session_search', { sessionId: w.oldQ, query: 'pipeline' }))).toEqual([w.oldP]);
  });

  test('reading a session of another project is a tool-level not_found, not a leak', async () => {
    const result = await rpc(gw, 'search.session_search', { sessionId: w.current, session_id: w.oldQ });
    expect(result.results).toEqual([]);
    expect(result.error).toMatchObject({ code: 'not_found' });
    expect(JSON.stringify(result)).not.toContain('canary');
  });

  test('scope is never an argument', async () => {
    expect((await rpcError(gw, 'search.session_search', { sessionId: w.current, query: 'pipeline', project_id: w.q })).code).toBe(-32602);
  });

  test('explicit semantic mode reports unavailability instead of pretending', async () => {
    const result = await rpc(gw, 'search.session_search', { sessionId: w.current, query: 'pipeline', search_mode: 'semantic' });
    expect(result.results).toEqual([]);
    expect(result.error).toMatchObject({ code: 'semantic_unavailable' });
  });

  test('browse (no query) lists recent conversations of the project', async () => {
    const result = await rpc(gw, 'search.session_search', { sessionId: w.current });
    expect(result.shape).toBe('browse');
    expect(sessionsOf(result)).toEqual([w.current, w.oldP].sort());
  });

  test('gateway.info reports the tool as available', async () => {
    expect((await rpc(gw, 'gateway.info')).searchAvailable).toBe(true);
  });
});
