/**
 * Project isolation as a property: for random worlds (projects, project-less sessions, lineage,
 * shared vocabulary across projects, hidden and deleted rows) and random calls of every shape, no
 * result and no window message ever comes from outside the caller's scope. Zero leaks is the only
 * passing figure.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  appendMessages,
  createContinuation,
  createDelegation,
  createBranch,
  createProject,
  createSession,
  deleteMessage,
  getSession,
  ownHistorySessionIds,
} from '@recall/store';
import { createSessionSearchTool } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

const VOCAB = ['backoff', 'retry', 'busy_timeout', 'config.yaml', 'E_CONN_RESET', '蒸鱼', '数据库', '超时', 'deploy', 'jitter', '项目', 'rust'];

const worldArb = fc.record({
  projects: fc.integer({ min: 1, max: 3 }),
  sessions: fc.array(
    fc.record({
      project: fc.integer({ min: -1, max: 2 }), // -1 = no project
      kind: fc.constantFrom('root', 'root', 'compression', 'branch', 'delegation'),
      parent: fc.nat(),
      words: fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
      deleteFirst: fc.boolean(),
    }),
    { minLength: 2, maxLength: 10 },
  ),
  calls: fc.array(
    fc.record({
      caller: fc.nat(),
      shape: fc.constantFrom('discover', 'discover', 'browse', 'read', 'scroll'),
      query: fc.oneof(fc.constantFrom(...VOCAB), fc.string({ maxLength: 30 }), fc.array(fc.constantFrom(...VOCAB), { maxLength: 3 }).map((w) => w.join(' '))),
      target: fc.nat(),
      mode: fc.constantFrom('hybrid', 'keyword'),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

/** A session compresses once; later compressions continue from its newest segment. */
function latestSegment(db: ReturnType<typeof tempDb>, id: string): string {
  const next = db.raw.prepare("select id from sessions where parent_session_id = ? and lineage = 'compression'").pluck();
  let current = id;
  for (let child = next.get(current) as string | undefined; child !== undefined; child = next.get(current) as string | undefined) current = child;
  return current;
}

describe('project isolation (property)', () => {
  test('no result or window leaves the caller scope', async () => {
    let checkedResults = 0;
    await fc.assert(
      fc.asyncProperty(worldArb, async (world) => {
        const db = tempDb();
        const projectIds = Array.from({ length: world.projects }, (_, i) => createProject(db, { name: `P${i}` }).id);
        const sessionIds: string[] = [];
        const messageIds: number[] = [];
        for (const spec of world.sessions) {
          const projectId = spec.project < 0 ? null : (projectIds[spec.project % projectIds.length] ?? null);
          const parent = sessionIds.length > 0 ? sessionIds[spec.parent % sessionIds.length]! : null;
          let id: string;
          if (spec.kind === 'compression' && parent) id = createContinuation(db, latestSegment(db, parent)).session.id;
          else if (spec.kind === 'branch' && parent) id = createBranch(db, parent).id;
          else if (spec.kind === 'delegation' && parent) id = createDelegation(db, parent).id;
          else id = createSession(db, { projectId }).id;
          sessionIds.push(id);
          const inserted = appendMessages(db, id, spec.words.map((w) => ({ role: 'user' as const, content: w.join(' ') }))).messages;
          messageIds.push(...inserted.map((m) => m.id));
          if (spec.deleteFirst && inserted[0]) deleteMessage(db, inserted[0].id);
        }
        const tool = createSessionSearchTool({ db });
        for (const call of world.calls) {
          const caller = getSession(db, sessionIds[call.caller % sessionIds.length]!);
          const allowed = new Set(
            caller.projectId === null
              ? ownHistorySessionIds(db, caller.id)
              : (db.raw.prepare('select id from sessions where project_id = ? and hidden = 0').pluck().all(caller.projectId) as string[]),
          );
          const args =
            call.shape === 'discover'
              ? { query: call.query, search_mode: call.mode }
              : call.shape === 'read'
                ? { session_id: sessionIds[call.target % sessionIds.length] }
                : call.shape === 'scroll'
                  ? { around_message_id: messageIds[call.target % messageIds.length] }
                  : {};
          const result = await tool.execute(args, { currentSessionId: caller.id });
          if (result.error) expect(['not_found', 'invalid_arguments']).toContain(result.error.code);
          for (const item of result.results) {
            checkedResults++;
            expect(allowed.has(item.session_id), `leak: ${item.session_id} for caller ${caller.id}`).toBe(true);
            const windowSession = db.raw.prepare('select distinct session_id from messages where id in (' + (item.window.map(() => '?').join(',') || 'null') + ')').pluck().all(...item.window.map((w) => w.message_id)) as string[];
            for (const s of windowSession) expect(allowed.has(s)).toBe(true);
            const visibility = db.raw.prepare('select visibility from messages where id = ?').pluck().get(item.message_id);
            expect(['live', 'compacted']).toContain(visibility);
          }
        }
      }),
      { numRuns: 60 },
    );
    // The property must actually have looked at results, or it proves nothing.
    expect(checkedResults).toBeGreaterThan(50);
  });
});
