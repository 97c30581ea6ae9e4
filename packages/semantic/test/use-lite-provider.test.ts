/**
 * The built-in USE-lite provider, for real: the model loads from the npm package in a worker
 * thread (no network), returns 512-d unit vectors, a paraphrase is closer than an unrelated
 * sentence, the event loop keeps running while a batch is embedded, and a project is indexed end
 * to end through SemanticIndex with it.
 */
import { appendMessage, createProject, createSession } from '@recall/store';
import { afterAll, describe, expect, test } from 'vitest';
import { createUseLiteProvider, parseSemanticConfig, type SemanticIndex } from '../src/index.js';
import { sqliteSemanticIndex } from '../src/sqlite/index.js';
import { blobToVector, cosine } from '../src/provider.js';
import { tempDb } from './support/temp-db.js';

const provider = createUseLiteProvider();
afterAll(() => provider.close());

describe('USE-lite (built-in, English only)', () => {
  test('info says local, English-only, 512 dimensions', () => {
    expect(provider.info).toMatchObject({ provider: 'use-lite', endpoint: 'local:use-lite', dims: 512, remote: false, languages: 'english-only' });
  });

  test('embeds into 512-d unit vectors, in order', async () => {
    const out = await provider.embed(['How do I reset my password?', 'The weather is nice today.', '']);
    expect(out).toHaveLength(3);
    for (const v of out) {
      expect(v).toHaveLength(512);
      expect(cosine(v, v)).toBeCloseTo(1, 4);
    }
  });

  test.each([
    { anchor: 'How do I reset my password?', paraphrase: 'I forgot my login credentials and need to change them', unrelated: 'The recipe needs two cups of flour and an egg' },
    { anchor: 'The database migration failed on startup', paraphrase: 'Schema upgrade crashed when the app launched', unrelated: 'We went hiking in the mountains last weekend' },
    { anchor: 'Book a flight to Paris for next Tuesday', paraphrase: 'I need a plane ticket to France next week', unrelated: 'The function returns a sorted list of integers' },
  ])('a paraphrase is closer than an unrelated sentence: $anchor', async ({ anchor, paraphrase, unrelated }) => {
    const [a, p, u] = await provider.embed([anchor, paraphrase, unrelated]);
    expect(cosine(a!, p!)).toBeGreaterThan(cosine(a!, u!));
  });

  test('the event loop stays responsive while a batch is embedded (worker thread)', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const batch = Array.from({ length: 32 }, (_, i) => `Sentence ${i} about a conversation with several more words so the model has work to do.`);
    await provider.embed(batch);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });

  test('an aborted call rejects with embedding_aborted and the provider keeps working', async () => {
    const controller = new AbortController();
    const pending = provider.embed(['one more sentence to embed'], { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'embedding_aborted' });
    await expect(provider.embed(['still alive'])).resolves.toHaveLength(1);
  });
});

describe('USE-lite through the index (real model, worker thread)', () => {
  test('a switched-on project is indexed end to end with 512-d unit vectors; nothing leaves the machine', async () => {
    const db = tempDb();
    const index = sqliteSemanticIndex({ db, config: parseSemanticConfig({ enabled: true, provider: 'use-lite' }) });
    try {
      const p = createProject(db, { name: 'Local' });
      const s = createSession(db, { projectId: p.id });
      for (const content of ['How do I reset my password?', 'Open settings and choose "forgot password".', 'Thanks, that worked.']) appendMessage(db, s.id, { role: 'user', content });
      expect(await index.enable(p.id)).toMatchObject({ endpoint: 'local:use-lite', remote: false });
      expect(await index.run({ projectId: p.id })).toMatchObject({ completed: true, written: 3 });
      expect(await index.status(p.id)).toMatchObject({ status: 'ready', eligible: 3, ready: 3 });
      const blobs = db.raw.prepare('select vector from semantic_chunks').pluck().all() as Buffer[];
      for (const b of blobs) {
        const v = blobToVector(b);
        expect(v).toHaveLength(512);
        expect(cosine(v, v)).toBeCloseTo(1, 4);
      }
    } finally {
      await index.close();
    }
  });
});
