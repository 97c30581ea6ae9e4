/**
 * `recall mcp` returns no secret to the agent's model: the built CLI as a real child process (the
 * official SDK client over stdio) searches a temp home whose earlier conversations hold the
 * fake-secret corpus of @recall/redaction (generated fresh, never real credentials). Every result —
 * text content and structuredContent — is checked. config.json's `privacy.redact` is honoured: an
 * extra pattern and an allow-list entry apply, and with `search_results: false` the secrets come back
 * (so the check can fail) while `<private>` spans still never do. The database keeps the original.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fakeSecretCorpus } from '@recall/redaction/internal';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { appendMessage, createProject, createSession, getMessages } from '@recall/store';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, REPO_ROOT, tempDir } from './cli-helpers.js';

beforeAll(() => assertCliBuilt());
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  cleanupTemp();
});

const corpus = fakeSecretCorpus();
const ALLOWED = 'AKIAIOSFODNN7EXAMPLE';

function seed(redact: Record<string, unknown>): { home: string; projectId: string; sessionIds: string[] } {
  const home = tempDir('recall-mcp-redact-');
  writeFileSync(join(home, 'config.json'), JSON.stringify({ privacy: { redact } }));
  const db = openDatabase(profileDatabasePath(home, 'default'));
  try {
    const projectId = createProject(db, { name: 'Vault' }).id;
    const sessionIds: string[] = [];
    for (const c of corpus) {
      const s = createSession(db, { projectId, title: `zanzibar ${c.name}` });
      appendMessage(db, s.id, { role: 'user', content: `zanzibar notes: ${c.text}` });
      sessionIds.push(s.id);
    }
    const extra = createSession(db, { projectId, title: 'zanzibar extra' });
    appendMessage(db, extra.id, { role: 'user', content: `zanzibar ticket ACME-8812345678 and the docs key ${ALLOWED}` });
    return { home, projectId, sessionIds };
  } finally {
    db.close();
  }
}

/** One `recall mcp --project` child process; `search(args)` calls session_search and returns every string of the result. */
async function connect(home: string, projectId: string): Promise<(args: Record<string, unknown>) => Promise<string>> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp', '--home', home, '--project', projectId], env: childEnv() as Record<string, string>, cwd: REPO_ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'recall-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(transport);
  return (args) => search(client, args);
}

async function search(client: Client, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name: 'session_search', arguments: args });
  expect(result.isError).toBe(false);
  const text = (result.content as { text: string }[])[0]!.text;
  // Decoded strings too: JSON escapes the newlines of PEM blocks and .env lines.
  const decoded: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') decoded.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(JSON.parse(text));
  walk(result.structuredContent);
  return [text, ...decoded].join('\n');
}

function leaked(secret: string, sent: string): boolean {
  for (let i = 0; i + 10 <= secret.length; i++) {
    const piece = secret.slice(i, i + 10);
    if (!/\s/.test(piece) && sent.includes(piece)) return true;
  }
  return false;
}

describe('recall mcp redacts session_search results', () => {
  it('no secret of the corpus comes back, over discover and read; extra patterns and the allow-list apply', async () => {
    const { home, projectId, sessionIds } = seed({ extraPatterns: [{ name: 'acme_ticket', pattern: 'ACME-[0-9]{10}' }], allow: [ALLOWED] });
    const search = await connect(home, projectId);
    const found = await search({ query: 'zanzibar', limit: 50 });
    expect(found).toContain('notes:');
    expect(found).toContain('[redacted:');
    expect(found).toContain('[redacted:acme_ticket]');
    expect(found).toContain(ALLOWED);
    // read: one whole earlier conversation per call, for a sample of the corpus (PEM, private, .env, JWT…)
    const reads: string[] = [];
    for (const [, i] of corpus.map((c, i) => [c, i] as const).filter(([c]) => ['pem_private_key', 'private', 'secret_assignment', 'jwt', 'url_password'].includes(c.kind))) {
      reads.push(await search({ session_id: sessionIds[i] }));
    }
    const all = [found, ...reads].join('\n');
    expect(corpus.filter((c) => leaked(c.secret, all)).map((c) => c.name)).toEqual([]);
    // The stored original is untouched.
    const db = openDatabase(profileDatabasePath(home, 'default'), { readonly: true });
    try {
      expect(getMessages(db, sessionIds[0]!)[0]!.content).toContain(corpus[0]!.secret);
    } finally {
      db.close();
    }
  });

  it('with search_results: false the secrets come back — <private> spans still never do', async () => {
    const { home, projectId } = seed({ search_results: false });
    const found = await (await connect(home, projectId))({ query: 'zanzibar', limit: 50 });
    const visible = corpus.filter((c) => c.kind !== 'private' && leaked(c.secret, found));
    expect(visible.length).toBeGreaterThan(20);
    for (const c of corpus.filter((x) => x.kind === 'private')) expect(leaked(c.secret.replace(/<\/?private>/gi, ''), found), c.name).toBe(false);
  });
});
