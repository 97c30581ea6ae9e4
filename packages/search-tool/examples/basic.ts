import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession } from '@recall/store';
import { createSessionSearchTool } from '@recall/search-tool';

const dir = mkdtempSync(join(tmpdir(), 'recall-search-tool-'));
const db = openDatabase(join(dir, 'profile.db'));
try {
  // Two projects: a search from one of them never sees the other.
  const garden = createProject(db, { name: 'Garden' });
  const taxes = createProject(db, { name: 'Taxes' });
  const earlier = createSession(db, { projectId: garden.id, title: 'Watering' });
  appendMessage(db, earlier.id, { role: 'user', content: 'How often should the tomatoes be watered?' });
  appendMessage(db, earlier.id, { role: 'assistant', content: 'Water the tomatoes deeply twice a week.' });
  const other = createSession(db, { projectId: taxes.id, title: 'Receipts' });
  appendMessage(db, other.id, { role: 'user', content: 'Are tomatoes for the office deductible?' });

  const tool = createSessionSearchTool({ db }); // no semantic source: keyword-only
  const current = createSession(db, { projectId: garden.id, title: 'Today' });
  const result = await tool.execute({ query: 'tomatoes', search_mode: 'keyword' }, { currentSessionId: current.id });

  console.log(result.shape, result.used_mode, result.semantic_status);
  for (const hit of result.results) console.log(hit.role, hit.title, '-', hit.snippet);
  console.log('hits from Taxes:', result.results.filter((hit) => hit.session_id === other.id).length);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
