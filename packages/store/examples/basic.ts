import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, getProject, keywordSearch, setSessionProject } from '@recall/store';

const dir = mkdtempSync(join(tmpdir(), 'recall-store-example-'));
const db = openDatabase(join(dir, 'recall.db'));
try {
  const kitchen = createProject(db, { name: 'Kitchen' });
  const garden = createProject(db, { name: 'Garden' });

  const dinner = createSession(db, { projectId: kitchen.id, title: '晚饭' });
  appendMessage(db, dinner.id, { role: 'user', content: '今晚做清蒸鲈鱼，需要姜和葱。' });
  const pond = createSession(db, { projectId: garden.id, title: 'Pond' });
  appendMessage(db, pond.id, { role: 'user', content: '池塘里的鲈鱼长大了。' });

  // The scope is part of the SQL: a Kitchen search never reads the Garden's messages.
  const search = (projectId: string) => keywordSearch(db, { kind: 'project', projectId }, '鲈鱼').hits.map((hit) => hit.snippet);
  console.log(`Kitchen: ${JSON.stringify(search(kitchen.id))}`);

  // Moving a conversation changes its project (and its whole logical conversation) in one transaction.
  const moved = setSessionProject(db, dinner.id, garden.id);
  const name = (id: string | null) => (id === null ? 'No project' : getProject(db, id).name);
  console.log(`moved ${moved.sessionIds.length} session: ${name(moved.previousProjectId)} -> ${name(moved.projectId)}`);
  console.log(`Kitchen: ${JSON.stringify(search(kitchen.id))}`);
  console.log(`Garden: ${JSON.stringify(search(garden.id))}`);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
