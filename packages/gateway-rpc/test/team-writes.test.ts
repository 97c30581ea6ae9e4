/**
 * Chat, export and hard deletes over JSON-RPC on both backends — a real gateway on the profile's
 * SQLite file and one on a throwaway PostgreSQL team database, each talking to a loopback
 * OpenAI-compatible server — with the same answers and typed errors (ids, times and the SQLite-only
 * `scrubbed` normalised away): chat.send, chat.compress and a compressed session refused,
 * the model's session_search confined to its project, conversations/projects.export, purge_hidden,
 * conversations.delete, projects.delete with and without its conversations. Another project's
 * conversation (holding the same words) is untouched by every one of them, and after a delete its
 * text is no longer found in the deleted project.
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { lastToolResult, startScriptedOpenAI, type RecordedRequest } from '@recall/config/scripted-openai';
import type { Storage } from '@recall/storage-ports';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { startGateway } from '../src/index.js';
import { onCleanup } from '@recall/config/gateway-client';
import { cleanup, collectingLogger, rpc, rpcError, tempHome, type GatewayEndpoint } from './helpers.js';

let cluster: ThrowawayPostgres | undefined;
beforeAll(async () => {
  cluster = await startThrowawayPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});
afterEach(cleanup);

async function gatewayOn(kind: 'sqlite' | 'postgres', chatUrl: string): Promise<GatewayEndpoint> {
  const storage: Storage | null = kind === 'postgres' ? await openPostgresStorage({ kind: 'postgres', url: cluster!.createDatabase('recall') }) : null;
  const gw = await startGateway({
    home: tempHome(),
    port: 0,
    uiDir: null,
    logger: collectingLogger(),
    storage,
    searchWorkers: 0, // the search tool in-process on both backends
    chat: { baseUrl: chatUrl, model: 'scripted-model', apiKey: 'sk-test-team', maxRetries: 0 },
  });
  onCleanup(() => gw.close());
  return gw;
}

/** Ids, times and message numbers replaced by stable placeholders in order of appearance. */
function normalised(value: unknown): unknown {
  const names = new Map<string, string>();
  const text = JSON.stringify(value)
    .replace(/\b(?:p|s|run)_[0-9A-Za-z_-]{8,}\b/g, (id) => {
      if (!names.has(id)) names.set(id, `<id${names.size}>`);
      return names.get(id)!;
    })
    .replace(/\b1\d{12}\b/g, '<ms>')
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?Z)?( UTC)?/g, '<date>')
    .replace(/recall:\d+/g, 'recall:<n>');
  return JSON.parse(text);
}

const MARK = 'okapi 獬豸貔貅';

/** The scenario; returns what each step answered (errors as their data.code), to compare across backends. */
async function scenario(kind: 'sqlite' | 'postgres'): Promise<unknown[]> {
  const openai = await startScriptedOpenAI([{ text: 'Noted.' }]);
  onCleanup(() => openai.close());
  const gw = await gatewayOn(kind, openai.url);
  const out: unknown[] = [];
  const code = async (method: string, params: unknown) => (await rpcError(gw, method, params)).data?.code;

  const alpha = (await rpc(gw, 'projects.create', { name: 'Alpha' })).id as string;
  const beta = (await rpc(gw, 'projects.create', { name: 'Beta' })).id as string;
  const stranger = await rpc(gw, 'session.create', { projectId: beta, title: 'stranger', messages: [{ role: 'user', content: `their ${MARK} notes` }] });
  const strangerBefore = await rpc(gw, 'session.page', { sessionId: stranger.id, limit: 100 });
  const chat = await rpc(gw, 'session.create', { projectId: alpha, title: 'Ops' });
  const keep = await rpc(gw, 'session.create', { projectId: alpha, title: 'keep', messages: [{ role: 'user', content: 'ordinary words' }] });

  const first = await rpc(gw, 'chat.send', { sessionId: chat.id, content: `Remember the ${MARK} rotation is on Thursdays.`, wait: true });
  out.push(['send', first.status, first.content, first.messageIds.length]);
  expect(first.status).toBe('completed');
  const compressed = await rpc(gw, 'chat.compress', { sessionId: chat.id });
  out.push(['compress', compressed.previous.endReason, compressed.session.lineage, compressed.session.projectId === alpha]);
  out.push(['send-ended', await code('chat.send', { sessionId: chat.id, content: 'late', wait: true })]);
  out.push(['compress-missing', await code('chat.compress', { sessionId: 's_missing' })]);

  // The model searches: only Alpha's conversation is found, never Beta's with the same words.
  openai.push({ toolCalls: [{ name: 'session_search', arguments: { query: 'okapi rotation' } }] }, (request: RecordedRequest) => {
    const found = (lastToolResult(request)?.results ?? []).map((r: { session_id: string }) => r.session_id);
    return { text: `found ${found.includes(chat.id)} stranger ${found.includes(stranger.id)}` };
  });
  const second = await rpc(gw, 'chat.send', { sessionId: compressed.session.id, content: 'When is the okapi rotation?', wait: true });
  out.push(['search', second.status, second.content, second.toolCalls.map((t: { name: string; hits: number }) => [t.name, t.hits])]);
  expect(second.content).toBe('found true stranger false');

  for (const format of ['recall-jsonl', 'markdown']) {
    const conv = await rpc(gw, 'conversations.export', { sessionId: compressed.session.id, format });
    expect(conv.text).toContain(MARK);
    expect(conv.text).not.toContain('their okapi');
    out.push(['export-conversation', format, conv]);
  }
  out.push(['export-project', await rpc(gw, 'projects.export', { projectId: alpha })]);
  out.push(['export-missing', await code('projects.export', { projectId: 'p_nope' }), await code('conversations.export', { sessionId: 's_nope' })]);

  // A soft delete, then the hidden message is removed for real.
  const [, answer] = (await rpc(gw, 'session.page', { sessionId: chat.id, at: 'oldest', limit: 100 })).messages as Array<{ id: number }>;
  await rpc(gw, 'session.delete', { messageId: answer!.id });
  const purged = await rpc(gw, 'conversations.purge_hidden', { sessionId: compressed.session.id });
  // SQLite scrubs the file at once; PostgreSQL frees the rows at its next vacuum (docs/team-mode.md).
  expect(purged.scrubbed).toBe(kind === 'sqlite');
  out.push(['purge-hidden', { ...purged, scrubbed: '(backend)' }]);
  out.push(['purge-hidden-again', (await rpc(gw, 'conversations.purge_hidden', { sessionId: chat.id })).messages]);

  const deleted = await rpc(gw, 'conversations.delete', { sessionId: compressed.session.id });
  expect(deleted.sessionIds).toEqual([chat.id, compressed.session.id]);
  expect(deleted.scrubbed).toBe(kind === 'sqlite');
  out.push(['delete', { ...deleted, scrubbed: '(backend)' }]);
  out.push(['delete-again', await code('conversations.delete', { sessionId: chat.id }), await code('session.get', { sessionId: compressed.session.id })]);

  out.push(['project-refused', (await rpcError(gw, 'projects.delete', { projectId: alpha })).data]);
  out.push(['project-deleted', await rpc(gw, 'projects.delete', { projectId: alpha, withConversations: true })]);
  out.push(['project-gone', await code('session.get', { sessionId: keep.id }), (await rpc(gw, 'projects.list', {})).projects.map((p: { name: string }) => p.name)]);
  out.push(['project-missing', await code('projects.delete', { projectId: alpha, withConversations: true })]);

  // Beta's conversation is exactly as it was.
  expect(await rpc(gw, 'session.page', { sessionId: stranger.id, limit: 100 })).toEqual(strangerBefore);
  return out.map(normalised);
}

test('chat, export and deletes answer the same on SQLite and on PostgreSQL, and never touch another project', async () => {
  const sqlite = await scenario('sqlite');
  const postgres = await scenario('postgres');
  expect(postgres).toEqual(sqlite);
  // The answers are real ones (not two identical refusals).
  expect(sqlite).toContainEqual(['send-ended', 'chat_session_ended']);
  expect(sqlite).toContainEqual(['project-refused', expect.objectContaining({ code: 'project_has_sessions', sessionCount: 1 })]);
}, 120_000);
