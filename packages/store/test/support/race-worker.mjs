// Child process for concurrency.test.ts: opens its own connection to the same database file and
// either moves a conversation back and forth between two projects or keeps creating compression
// continuations. After every operation it checks, in one read snapshot, that all sessions of the
// conversation share one project. Prints a JSON summary on stdout.
import { openDatabase } from '@recall/schema';
import { createContinuation, logicalConversationIds, readTransaction, setSessionProject } from '../../dist/index.js';

const [, , dbPath, role, rootId, projectA, projectB, iterations] = process.argv;
const db = openDatabase(dbPath);
let violations = 0;
let ops = 0;
let tip = rootId;

function check() {
  readTransaction(db, () => {
    const ids = logicalConversationIds(db, rootId);
    const projects = new Set(ids.map((id) => db.raw.prepare('select project_id from sessions where id = ?').pluck().get(id)));
    if (projects.size !== 1) violations++;
  });
}

for (let i = 0; i < Number(iterations); i++) {
  if (role === 'mover') {
    setSessionProject(db, rootId, i % 2 === 0 ? projectB : projectA);
  } else {
    tip = createContinuation(db, tip).session.id;
  }
  ops++;
  check();
}
db.close();
process.stdout.write(JSON.stringify({ role, ops, violations }));
