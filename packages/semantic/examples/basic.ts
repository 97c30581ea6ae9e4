import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, getMessage } from '@recall/store';
import { l2normalize, parseSemanticConfig, type EmbeddingProvider } from '@recall/semantic';
import { createConfiguredSemanticSource, sqliteSemanticIndex } from '@recall/semantic/sqlite';

// A TOY embedder, not a model: it hashes character trigrams into 64 dimensions, so texts that share
// spellings get close vectors. Deterministic and offline; use createProvider() for a real model.
const DIMS = 64;
const toyEmbedder: EmbeddingProvider = {
  info: { provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'toy-trigrams', dims: DIMS, maxInputTokens: 512, charsPerToken: 4, maxBatch: 32, remote: false, languages: 'model-dependent' },
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(DIMS);
      const s = ` ${text.toLowerCase()} `;
      for (let i = 0; i + 3 <= s.length; i++) {
        let h = 0;
        for (const c of s.slice(i, i + 3)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
        vector[h % DIMS]! += 1;
      }
      return l2normalize(vector);
    });
  },
  async close() {},
};

const dir = mkdtempSync(join(tmpdir(), 'recall-semantic-'));
const db = openDatabase(join(dir, 'profile.db'));
const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'toy-trigrams', dims: DIMS });
const index = sqliteSemanticIndex({ db, config, provider: toyEmbedder });
try {
  const garden = createProject(db, { name: 'Garden' });
  const earlier = createSession(db, { projectId: garden.id, title: 'Watering' });
  appendMessage(db, earlier.id, { role: 'user', content: 'How often should the tomatoes be watered?' });
  appendMessage(db, earlier.id, { role: 'assistant', content: 'Water the tomatoes deeply twice a week.' });

  await index.enable(garden.id); // consent: this project's text may be embedded
  const run = await index.run({ projectId: garden.id });
  console.log('indexed:', run.completed, (await index.status(garden.id)).status);

  // The source session_search takes: pass it as createSessionSearchTool({ db, semantic }) of
  // @recall/search-tool. Called directly here, with the scope the tool would resolve for a caller.
  const semantic = createConfiguredSemanticSource({ db, config, provider: index.provider })!;
  const scope = { kind: 'project' as const, projectId: garden.id, currentSessionId: null };
  console.log(semantic.status(scope));
  const hits = await semantic.search('tomato watering', scope, { limit: 5, signal: AbortSignal.timeout(8_000) });
  for (const hit of hits) console.log(hit.score.toFixed(2), getMessage(db, hit.messageId).content);
} finally {
  await index.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
