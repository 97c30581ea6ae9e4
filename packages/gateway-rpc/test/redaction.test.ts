/**
 * The gateway's redaction policy: what chat sends to the model is redacted (a real gateway, a
 * scripted OpenAI-compatible server on loopback recording every request), the stored message keeps
 * the original, and `gateway.info` reports the counts per surface and kind since start.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc } from './helpers.js';
import { createConversation, createProject, messagesOf, startChatGateway } from './support/chat-gateway.js';

afterEach(cleanup);

describe('redaction in the gateway', () => {
  test('chat sends placeholders, stores the original, and gateway.info counts them', async () => {
    const { gw, openai } = await startChatGateway({ script: [{ text: 'Noted.' }] });
    const token = `ghp_${'Ab3'.repeat(12)}`;
    const before = (await rpc(gw, 'gateway.info', {})) as { redaction?: { surfaces: Record<string, { enabled: boolean; redactions: number }> } };
    expect(before.redaction?.surfaces.chat).toEqual({ enabled: true, redactions: 0, byKind: {} });
    const project = await createProject(gw, 'Vault');
    const chat = await createConversation(gw, project, 'keys');
    const content = `my token is ${token}\nDB_PASSWORD=hunter2hunter2 <private>and my address</private>`;
    const sent = (await rpc(gw, 'chat.send', { sessionId: chat.id, content, wait: true })) as { status: string };
    expect(sent.status).toBe('completed');
    expect(openai.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'my token is [redacted:github_token]\nDB_PASSWORD=[redacted:secret_assignment] [redacted:private]' }]);
    expect(JSON.stringify(openai.requests)).not.toContain(token);
    expect((await messagesOf(gw, chat.id))[0]!.content).toBe(content);
    const info = (await rpc(gw, 'gateway.info', {})) as { redaction: { surfaces: Record<string, { enabled: boolean; redactions: number; byKind: Record<string, number> }> } };
    expect(info.redaction.surfaces.chat).toEqual({ enabled: true, redactions: 3, byKind: { github_token: 1, private: 1, secret_assignment: 1 } });
    expect(info.redaction.surfaces.embedding).toEqual({ enabled: true, redactions: 0, byKind: {} });
  });
});
