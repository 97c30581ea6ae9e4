/**
 * No secret reaches the embedding endpoint: a real SemanticIndex embeds through a real loopback
 * OpenAI-compatible server (tooling/config's scripted embeddings) the fake-secret corpus of
 * @recall/redaction (generated fresh, never real credentials), and every text the server received —
 * chunks and a query — is checked. With redaction switched off the secrets do arrive (so the check
 * can fail), while `<private>` spans are never in a chunk either way.
 */
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { fakeSecretCorpus } from '@recall/redaction/internal';
import { appendMessage, createProject, createSession } from '@recall/store';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chunkText } from '../src/chunker.js';
import { parseSemanticConfig, type SemanticIndex } from '../src/index.js';
import { sqliteSemanticIndex } from '../src/sqlite/index.js';
import { tempDb } from './support/temp-db.js';

let server: ScriptedEmbeddings;
beforeAll(async () => {
  server = await startScriptedEmbeddings({ dims: 8 });
});
afterAll(async () => {
  await server.close();
});

const corpus = fakeSecretCorpus();

/** 10-character pieces of `secret` (no whitespace) found in any of `texts`. */
function leaked(secret: string, texts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 10 <= secret.length; i++) {
    const piece = secret.slice(i, i + 10);
    if (!/\s/.test(piece) && texts.some((t) => t.includes(piece))) out.push(piece);
  }
  return out;
}

async function embedCorpus(redact: null | undefined) {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const s = createSession(db, { projectId: p.id });
  for (const c of corpus) appendMessage(db, s.id, { role: 'user', content: `${c.name}: ${c.text}` });
  const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: server.url, model: `m-${redact === null ? 'off' : 'on'}`, dims: 8, maxRetries: 0, timeoutMs: 5_000 })!;
  const index = sqliteSemanticIndex({ db, config, pollMs: 60_000, ...(redact === null ? { redact: null, mask: null } : {}) });
  try {
    await index.enable(p.id);
    const before = server.requests.length;
    const result = await index.run({ projectId: p.id });
    expect(result).toMatchObject({ completed: true });
    await index.provider!.embed([`what was ${corpus[0]!.secret} used for?`]);
    return server.requests.slice(before).flatMap((r) => r.inputs);
  } finally {
    await index.close();
    db.close();
  }
}

describe('the embedding surface', () => {
  test('by default every secret of the corpus is redacted before it is sent, chunks and queries alike', async () => {
    const sent = await embedCorpus(undefined);
    expect(sent.length).toBeGreaterThanOrEqual(corpus.length);
    for (const c of corpus) expect(leaked(c.secret, sent), c.name).toEqual([]);
    expect(sent.join('\n')).toContain('[redacted:github_token]');
    expect(sent.at(-1)).toMatch(/^what was \[redacted:openai_key\] used for\?$/);
    expect(sent.join('\n')).not.toMatch(/<\/?private>/i);
  });

  test('switched off (privacy.redact.embedding: false) the secrets are sent, <private> spans still are not', async () => {
    const sent = await embedCorpus(null);
    const privateCases = corpus.filter((c) => c.kind === 'private');
    const others = corpus.filter((c) => c.kind !== 'private' && c.kind !== 'pem_private_key');
    expect(others.filter((c) => leaked(c.secret, sent).length === 0).map((c) => c.name)).toEqual([]);
    for (const c of privateCases) expect(leaked(c.secret.replace(/<\/?private>/gi, ''), sent), c.name).toEqual([]);
  });
});

describe('the chunker blanks <private> spans', () => {
  test('no chunk holds private text; offsets still point into the stored content', () => {
    const content = 'public start. <private>hidden words here</private> public end.';
    const chunks = chunkText(content, { maxInputTokens: 512, charsPerToken: 3 });
    expect(chunks.map((c) => c.text).join(' ')).not.toMatch(/hidden|private/);
    for (const c of chunks) expect(content.slice(c.start, c.end).replace(/<private>[\s\S]*?<\/private>/, (m) => ' '.repeat(m.length))).toBe(c.text);
    expect(chunkText('only <private>x</private>', { maxInputTokens: 512, charsPerToken: 3 }).map((c) => c.text)).toEqual(['only']);
  });
});
