/**
 * The seed's business contract over the wire (seed §2, §4.4): changing directory never changes the
 * project and changing the project never changes the directory — in both directions, for both
 * directory methods — and a move is effective for the next search while a search already running
 * completes with the scope it started with.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sessionProjectId } from '@recall/store';
import type { SessionSearchExecutor } from '@recall/search-tool';
import { cleanup, rowCounts, rpc, startTestGateway, type TestGateway } from './helpers.js';

afterEach(cleanup);

function messagesFingerprint(gw: TestGateway): string {
  return rowCounts(gw).fingerprint.split('|')[1] ?? '';
}

describe('directory vs project', () => {
  let gw: TestGateway;
  let p: string;
  let q: string;
  let s: string;
  let cont: string;
  beforeEach(async () => {
    gw = await startTestGateway();
    p = (await rpc(gw, 'projects.create', { name: 'P', folders: ['/work/p'] })).id;
    q = (await rpc(gw, 'projects.create', { name: 'Q', folders: ['/work/q'] })).id;
    s = (await rpc(gw, 'session.create', { projectId: p, cwd: '/work/p', gitRepoRoot: '/work/p', gitBranch: 'main', messages: [{ role: 'user', content: 'hello' }] })).id;
    cont = (await rpc(gw, 'session.compress', { sessionId: s })).session.id;
  });

  test.each(['session.cwd.set', 'session.workspace.move'])("%s into another project's folder keeps the project", async (method) => {
    const moved = await rpc(gw, method, { sessionId: s, cwd: '/work/q/sub', gitRepoRoot: '/work/q', gitBranch: 'dev' });
    expect(moved).toMatchObject({ cwd: '/work/q/sub', gitRepoRoot: '/work/q', gitBranch: 'dev', projectId: p });
    expect((await rpc(gw, 'session.get', { sessionId: cont })).projectId).toBe(p);
    // And back again: still P, still no project change anywhere.
    expect(await rpc(gw, method, { sessionId: s, cwd: '/work/p' })).toMatchObject({ cwd: '/work/p', projectId: p });
    expect((await rpc(gw, 'session.list', { projectId: q })).sessions).toEqual([]);
  });

  test.each(['session.cwd.set', 'session.workspace.move'])('%s on a session without a project leaves it without one', async (method) => {
    const loose = (await rpc(gw, 'session.create', { cwd: '/tmp/a' })).id;
    expect(await rpc(gw, method, { sessionId: loose, cwd: '/work/q' })).toMatchObject({ cwd: '/work/q', projectId: null });
  });

  test('session.project.set moves the whole logical conversation and keeps cwd, git metadata and messages', async () => {
    const beforeMessages = messagesFingerprint(gw);
    const result = await rpc(gw, 'session.project.set', { sessionId: cont, projectId: q });
    expect([...result.sessionIds].sort()).toEqual([s, cont].sort());
    expect(result).toMatchObject({ projectId: q, previousProjectId: p });
    for (const id of [s, cont]) {
      expect(await rpc(gw, 'session.get', { sessionId: id })).toMatchObject({ projectId: q, cwd: '/work/p', gitRepoRoot: '/work/p', gitBranch: 'main' });
    }
    expect(messagesFingerprint(gw)).toBe(beforeMessages);
    // And back: P again, directory still untouched.
    await rpc(gw, 'session.project.set', { sessionId: s, projectId: p });
    expect(await rpc(gw, 'session.get', { sessionId: cont })).toMatchObject({ projectId: p, cwd: '/work/p' });
  });

  test('session.project.set null removes the conversation from its project (cwd unchanged)', async () => {
    const result = await rpc(gw, 'session.project.set', { sessionId: s, projectId: null });
    expect(result).toMatchObject({ projectId: null, previousProjectId: p });
    expect(await rpc(gw, 'session.get', { sessionId: cont })).toMatchObject({ projectId: null, cwd: '/work/p' });
    expect((await rpc(gw, 'session.list', { projectId: null })).sessions.map((x: any) => x.id).sort()).toEqual([s, cont].sort());
  });

  test('branch and reset inherit once and do not follow later moves', async () => {
    const branch = (await rpc(gw, 'session.branch', { sessionId: cont })).id;
    const reset = (await rpc(gw, 'session.reset', { sessionId: cont })).id;
    await rpc(gw, 'session.project.set', { sessionId: s, projectId: q });
    expect((await rpc(gw, 'session.get', { sessionId: branch })).projectId).toBe(p);
    expect((await rpc(gw, 'session.get', { sessionId: reset })).projectId).toBe(p);
    // Moving the branch moves only the branch.
    const moved = await rpc(gw, 'session.project.set', { sessionId: branch, projectId: null });
    expect(moved.sessionIds).toEqual([branch]);
    expect((await rpc(gw, 'session.get', { sessionId: s })).projectId).toBe(q);
  });

  test('resume reads the stored project, not one derived from cwd', async () => {
    await rpc(gw, 'session.cwd.set', { sessionId: cont, cwd: '/work/q' });
    const resumed = await rpc(gw, 'session.resume', { sessionId: cont });
    expect(resumed.session).toMatchObject({ projectId: p, cwd: '/work/q' });
  });

  test('renaming a project or editing its folders changes no conversation', async () => {
    const before = rowCounts(gw).fingerprint.split('|')[0];
    await rpc(gw, 'projects.update', { projectId: p, name: 'P renamed' });
    await rpc(gw, 'projects.folders.remove', { projectId: p, path: '/work/p' });
    await rpc(gw, 'projects.folders.add', { projectId: q, path: '/work/p' });
    expect(rowCounts(gw).fingerprint.split('|')[0]).toBe(before);
  });

  test('a discovered folder becomes a stable project id before it is a move target; the path never becomes project_id', async () => {
    const loose = (await rpc(gw, 'session.create', { cwd: '/repos/found' })).id;
    const { project } = await rpc(gw, 'projects.for_folder', { path: '/repos/found' });
    await rpc(gw, 'session.project.set', { sessionId: loose, projectId: project.id });
    const stored = await rpc(gw, 'session.get', { sessionId: loose });
    expect(stored.projectId).toBe(project.id);
    expect(stored.projectId).not.toContain('/');
    expect((await rpc(gw, 'projects.for_folder', { path: '/repos/found/./' })).project.id).toBe(project.id);
  });
});

describe('a move and a running search', () => {
  /**
   * A search tool that reads its scope from the database when it starts (as the real tool does) and
   * then waits on a gate before answering, standing in for a slow semantic call.
   */
  function gatedTool(gwRef: { gw?: TestGateway }) {
    const gates: (() => void)[] = [];
    let started = 0;
    const startedWaiters: (() => void)[] = [];
    const tool: SessionSearchExecutor = {
      execute: async (_args, context) => {
        const scope = sessionProjectId(gwRef.gw!.context.db, context.currentSessionId!);
        started++;
        startedWaiters.splice(0).forEach((w) => w());
        await new Promise<void>((resolve) => gates.push(resolve));
        return { scope };
      },
    };
    return {
      tool,
      releaseAll: () => gates.splice(0).forEach((g) => g()),
      whenStarted: (n: number) => (started >= n ? Promise.resolve() : new Promise<void>((r) => startedWaiters.push(r))),
    };
  }

  test('the search started before the move completes with the old scope; the next one uses the new project', async () => {
    const ref: { gw?: TestGateway } = {};
    const gated = gatedTool(ref);
    const gw = await startTestGateway({ searchTool: gated.tool });
    ref.gw = gw;
    const p = (await rpc(gw, 'projects.create', { name: 'P' })).id;
    const q = (await rpc(gw, 'projects.create', { name: 'Q' })).id;
    const s = (await rpc(gw, 'session.create', { projectId: p })).id;

    const running = rpc(gw, 'search.session_search', { sessionId: s, query: 'x' });
    await gated.whenStarted(1);
    // The move is not blocked by the in-flight search, and does not cancel it.
    const move = await rpc(gw, 'session.project.set', { sessionId: s, projectId: q });
    expect(move.projectId).toBe(q);
    gated.releaseAll();
    expect(await running).toEqual({ scope: p });

    const next = rpc(gw, 'search.session_search', { sessionId: s, query: 'x' });
    await gated.whenStarted(2);
    gated.releaseAll();
    expect(await next).toEqual({ scope: q });
  });
});
