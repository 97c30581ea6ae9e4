// A consumer of the published stage-A packages, compiled and run in a scratch project outside the
// workspace (installed from the packed tarballs with plain npm). Two projects, a Chinese message,
// a keyword session_search from project A: only A's text comes back, never B's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RPC_METHODS } from '@recall/rpc-contract';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession } from '@recall/store';
import { createSessionSearchTool, type SessionSearchResult } from '@recall/search-tool';
import { importJsonlText } from '@recall/importers';
import { startGateway } from '@recall/gateway-rpc';
import { ChatError } from '@recall/chat';

// Our public types must be real types: with a types package missing they silently become `any`.
type IsAny<T> = 0 extends 1 & T ? true : false;
const rawIsTyped: IsAny<RecallDatabase['raw']> = false;
const resultIsTyped: IsAny<SessionSearchResult> = false;
const gatewayIsTyped: IsAny<Awaited<ReturnType<typeof startGateway>>> = false;
void [rawIsTyped, resultIsTyped, gatewayIsTyped];

const dir = mkdtempSync(join(tmpdir(), 'recall-consumer-'));
try {
  const db = openDatabase(join(dir, 'recall.db'));
  const a = createProject(db, { name: 'Recipes' });
  const b = createProject(db, { name: 'Secrets' });
  const old = createSession(db, { projectId: a.id, title: '番茄炒蛋' });
  appendMessage(db, old.id, { role: 'user', content: '番茄炒蛋先炒鸡蛋，再放番茄。' });
  const other = createSession(db, { projectId: b.id, title: 'B' });
  appendMessage(db, other.id, { role: 'user', content: '番茄炒蛋 is project B text that A must never see' });
  const now = createSession(db, { projectId: a.id, title: 'now' });
  appendMessage(db, now.id, { role: 'user', content: 'hello' });

  const tool = createSessionSearchTool({ db });
  const result: SessionSearchResult = await tool.execute({ query: '番茄炒蛋', search_mode: 'keyword' }, { profile: 'default', currentSessionId: now.id });
  const text = JSON.stringify(result);
  if (!text.includes('先炒鸡蛋')) throw new Error(`project A's Chinese message was not found: ${text}`);
  if (text.includes('project B text')) throw new Error('project B text was returned to project A');
  const first = (result as { results?: { session_id: string; message_id: number }[] }).results?.[0];
  if (first?.session_id !== old.id) throw new Error(`anchor is not the old session: ${text}`);

  const imported = await importJsonlText(db, '');
  db.close();

  const gw = await startGateway({ home: join(dir, 'home'), port: 0, uiDir: null, logger: { info() {}, warn() {}, error() {} } });
  const info = (await gw.call('gateway.info')) as { version: string };
  await gw.close();

  console.log(JSON.stringify({ ok: true, results: result.results.length, anchor: first.message_id, methods: Object.keys(RPC_METHODS).length, imported: imported.lines, gateway: info.version, chatError: new ChatError('chat_not_configured', 'x').code }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
