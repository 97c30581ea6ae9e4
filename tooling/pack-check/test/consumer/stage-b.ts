// Stage B on top of stage A, in the same scratch project after the semantic tarball is added:
// the index is built on a consumer's database and plugs into search-tool's SemanticSource seam.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import { MatrixCache, parseSemanticConfig, type SemanticIndex } from '@recall/semantic';
import { createConfiguredSemanticSource, sqliteSemanticIndex } from '@recall/semantic/sqlite';

type IsAny<T> = 0 extends 1 & T ? true : false;
const indexIsTyped: IsAny<SemanticIndex> = false;
void indexIsTyped;

const dir = mkdtempSync(join(tmpdir(), 'recall-consumer-b-'));
try {
  const db = openDatabase(join(dir, 'recall.db'));
  const config = parseSemanticConfig(null);
  const index = sqliteSemanticIndex({ db, config });
  const semantic = createConfiguredSemanticSource({ db, config, provider: null, cache: new MatrixCache() });
  const tool = createSessionSearchTool({ db, semantic });
  await index.close();
  db.close();
  console.log(JSON.stringify({ ok: true, active: index.active, hasTool: typeof tool.execute === 'function' }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
