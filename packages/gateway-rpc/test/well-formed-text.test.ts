/**
 * Lone surrogates over the wire (real loopback gateway, real SQLite file): the store replaces each
 * with one U+FFFD before storing, so every answer equals what a later read returns.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, createConversation, messagesOf, rpc, startTestGateway } from './helpers.js';

afterEach(cleanup);

describe('lone surrogates over RPC', () => {
  test('session.append and projects.create answer what they stored', async () => {
    const gw = await startTestGateway();
    const project = await rpc<{ id: string; name: string }>(gw, 'projects.create', { name: 'x\ud800y' });
    expect(project.name).toBe('x\ufffdy');
    expect((await rpc<{ projects: { name: string }[] }>(gw, 'projects.list', {})).projects.map((p) => p.name)).toEqual(['x\ufffdy']);
    const conv = await createConversation(gw, project.id, 'title\udc00');
    expect((await rpc<{ title: string }>(gw, 'session.get', { sessionId: conv.id })).title).toBe('title\ufffd');
    const appended = await rpc<{ content: string }>(gw, 'session.append', { sessionId: conv.id, role: 'user', content: 'SURR\ud800' });
    expect(appended.content).toBe('SURR\ufffd');
    expect((await messagesOf(gw, conv.id)).map((m) => m.content)).toEqual(['SURR\ufffd']);
  });
});
