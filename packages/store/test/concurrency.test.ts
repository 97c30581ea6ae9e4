/**
 * A move and continuation creation racing from two processes (two connections to one file): the
 * BEGIN IMMEDIATE write transactions serialise them, so no snapshot ever shows a continuation on a
 * project other than its conversation's. Runs the built package in real child processes.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { createProject, createSession, getSession, logicalConversationIds } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

const run = promisify(execFile);
const worker = fileURLToPath(new URL('./support/race-worker.mjs', import.meta.url));

describe('move vs continuation from two connections', () => {
  test('never leaves a continuation on the old project', async () => {
    const db = tempDb();
    const a = createProject(db, { name: 'A' });
    const b = createProject(db, { name: 'B' });
    const root = createSession(db, { projectId: a.id });
    const iterations = '150';
    const [mover, continuer] = await Promise.all([
      run(process.execPath, [worker, db.path, 'mover', root.id, a.id, b.id, iterations]),
      run(process.execPath, [worker, db.path, 'continuer', root.id, a.id, b.id, iterations]),
    ]);
    const results = [JSON.parse(mover.stdout), JSON.parse(continuer.stdout)];
    expect(results).toEqual([
      { role: 'mover', ops: 150, violations: 0 },
      { role: 'continuer', ops: 150, violations: 0 },
    ]);
    const ids = logicalConversationIds(db, root.id);
    expect(ids).toHaveLength(151);
    const projects = new Set(ids.map((id) => getSession(db, id).projectId));
    expect(projects.size).toBe(1);
  });
});
