/**
 * The chat's `/compress` (chat.compress): the conversation segment ends with end_reason
 * compression and continues in a new session of the same logical conversation that starts with a
 * short system note. The compressed part leaves the model's context (the continuation's history is
 * the note plus what follows) but stays findable by the conversation itself through session_search —
 * in a project, and for a conversation without a project (own-history scope), where other
 * project-less conversations must stay invisible. A later move takes the continuation along.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc } from './helpers.js';
import { createConversation, createProject, messagesOf, startChatGateway } from './support/chat-gateway.js';
import { lastToolResult, type RecordedRequest } from '@recall/config/scripted-openai';

afterEach(cleanup);

const searchOkapi = { toolCalls: [{ name: 'session_search', arguments: { query: 'okapi rotation' } }] };
const quote = (request: RecordedRequest) => {
  const first = lastToolResult(request)?.results?.[0];
  return { text: first ? `Earlier: ${first.snippet}` : 'No record of that.' };
};

describe.each([
  ['in a project', true],
  ['without a project', false],
])('compress, then recall the compressed part (%s)', (_name, inProject) => {
  test('the continuation does not carry the old messages, but its session_search finds them', async () => {
    const { gw, openai } = await startChatGateway({ script: [{ text: 'Noted: Thursdays.' }] });
    const projectId = inProject ? await createProject(gw, 'Atlas') : null;
    const chat = await createConversation(gw, projectId, 'Ops');
    // A stranger conversation with the same words: in the other case (no project) it must stay invisible.
    const stranger = await createConversation(gw, null, 'Someone else', [{ role: 'user', content: 'Our okapi rotation is on Mondays.' }]);

    const first = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'Remember: the okapi rotation of staging keys happens on Thursdays.', wait: true });
    expect(first.status).toBe('completed');
    const preCompression = await messagesOf(gw, chat.id);

    const compressed = await rpc(gw, 'chat.compress', { sessionId: chat.id });
    expect(compressed.previous).toMatchObject({ id: chat.id, endReason: 'compression', endedAt: expect.any(Number) });
    expect(compressed.session).toMatchObject({ lineage: 'compression', parentSessionId: chat.id, projectId, title: 'Ops' });
    const continuation = compressed.session.id as string;
    const [note] = await messagesOf(gw, continuation);
    expect(note).toMatchObject({ role: 'system' });
    expect(note.content).toContain(chat.id);
    expect(note.content).toContain('session_search');

    openai.push(searchOkapi, quote);
    const second = await rpc(gw, 'chat.send', { sessionId: continuation, content: 'When does the okapi rotation happen?', wait: true });
    expect(second.status).toBe('completed');
    const [askRequest, answerRequest] = openai.requests.slice(1) as [RecordedRequest, RecordedRequest];
    // Only the continuation's live messages are context: the note and the new question.
    expect(askRequest.body.messages).toEqual([
      { role: 'system', content: note.content },
      { role: 'user', content: 'When does the okapi rotation happen?' },
    ]);
    const result = lastToolResult(answerRequest);
    expect(result.scope.kind).toBe(inProject ? 'project' : 'own_conversation');
    const found = result.results.map((r: any) => r.session_id);
    expect(found).toContain(chat.id);
    expect(found).not.toContain(stranger.id);
    expect(found).not.toContain(continuation);
    const anchor = result.results.find((r: any) => r.session_id === chat.id);
    expect(preCompression.map((m) => m.id)).toContain(anchor.message_id);
    expect(second.content).toBe(`Earlier: ${result.results[0].snippet}`);
    expect(second.content).toContain('Thursdays');
  });
});

test('the continuation moves with its conversation, and its next search follows the move', async () => {
  const { gw, openai } = await startChatGateway({ script: [{ text: 'ok' }] });
  const atlas = await createProject(gw, 'Atlas');
  const borealis = await createProject(gw, 'Borealis');
  const neighbour = await createConversation(gw, borealis, 'Borealis ops', [{ role: 'user', content: 'Borealis okapi rotation runs on Fridays.' }]);
  const chat = await createConversation(gw, atlas, 'Ops');
  await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'The okapi rotation is on Thursdays.', wait: true });
  const { session } = await rpc(gw, 'chat.compress', { sessionId: chat.id, note: 'Continued after /compress.' });
  expect((await messagesOf(gw, session.id))[0]).toMatchObject({ role: 'system', content: 'Continued after /compress.' });

  const moved = await rpc(gw, 'session.project.set', { sessionId: session.id, projectId: borealis });
  expect(new Set(moved.sessionIds)).toEqual(new Set([chat.id, session.id]));

  openai.push(searchOkapi, quote);
  await rpc(gw, 'chat.send', { sessionId: session.id, content: 'okapi rotation?', wait: true });
  const result = lastToolResult(openai.requests.at(-1)!);
  expect(result.scope).toEqual({ kind: 'project', project_id: borealis });
  expect(new Set(result.results.map((r: any) => r.session_id))).toEqual(new Set([chat.id, neighbour.id]));
});
