/**
 * Imported history as the search tool sees it (the composition gateway-rpc serves): after a
 * Hermes import, recall finds the compacted part of a conversation and never a rewound answer.
 * The importers' own mapping (visibility per message) is tested in packages/importers.
 */
import { join } from 'node:path';
import { importHermes } from '@recall/importers';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import { createProject } from '@recall/store';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanupTemp, tempDir } from './cli-helpers.js';
import { hermesDb } from '@recall/config/source-fixtures';

const opened: RecallDatabase[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  cleanupTemp();
});

describe('imported Hermes history in search', () => {
  test('recall sees the compacted history, never the rewound answer', async () => {
    const db = openDatabase(join(tempDir('recall-import-search-'), 'recall.db'));
    opened.push(db);
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'));
    createProject(db, { id: 'p_delta', name: 'Delta' });
    await importHermes(db, path, { mapping: { kind: 'project', projectId: 'p_delta' } });
    const tool = createSessionSearchTool({ db });
    const found = await tool.execute({ query: 'dead-letter', search_mode: 'keyword' }, { currentSessionId: '20250901_120000_dd44' });
    expect(found.results.map((r) => r.session_id)).toContain('20250901_090000_aa11');
    const rewound = await tool.execute({ query: 'poison pills', search_mode: 'keyword' }, { currentSessionId: '20250901_120000_dd44' });
    expect(rewound.results).toEqual([]);
  });
});
