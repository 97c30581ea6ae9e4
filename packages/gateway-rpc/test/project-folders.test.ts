/**
 * Project folders over the wire (real loopback gateway, real SQLite file): a relative path, `/` and the
 * unconfirmed home folder are refused with `invalid_folder` (-32034) by every folder-writing method,
 * and nothing is stored; `confirmHome: true` accepts the home folder.
 */
import { homedir } from 'node:os';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc, rpcError, startTestGateway } from './helpers.js';

afterEach(cleanup);

const invalidFolder = (reason: string) => ({ code: -32034, data: { code: 'invalid_folder', reason } });

describe('project folder paths over RPC', () => {
  test('relative paths, roots and the unconfirmed home folder are refused; confirmHome accepts home', async () => {
    const gw = await startTestGateway();
    expect(await rpcError(gw, 'projects.for_folder', { path: '../../etc' })).toMatchObject(invalidFolder('relative'));
    expect(await rpcError(gw, 'projects.for_folder', { path: '/' })).toMatchObject(invalidFolder('root'));
    expect(await rpcError(gw, 'projects.create', { name: 'R', folders: ['/'] })).toMatchObject(invalidFolder('root'));
    expect(await rpcError(gw, 'projects.for_folder', { path: homedir() })).toMatchObject(invalidFolder('home'));
    const p = await rpc<{ id: string }>(gw, 'projects.create', { name: 'P' });
    expect(await rpcError(gw, 'projects.folders.add', { projectId: p.id, path: 'rel/dir' })).toMatchObject(invalidFolder('relative'));
    expect(await rpcError(gw, 'projects.folders.add', { projectId: p.id, path: homedir() })).toMatchObject(invalidFolder('home'));
    expect((await rpc<{ projects: { folders: unknown[] }[] }>(gw, 'projects.list', {})).projects.map((x) => x.folders)).toEqual([[]]);
    const home = await rpc<{ project: { folders: { path: string }[] }; created: boolean }>(gw, 'projects.for_folder', { path: homedir(), confirmHome: true });
    expect(home.created).toBe(true);
    expect(home.project.folders.map((f) => f.path)).toEqual([homedir()]);
  });
});
