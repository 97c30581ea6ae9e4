/**
 * Isolation of the real semantic retrieval as a property: random worlds built from random store
 * operations (projects, project-less sessions, compression/branch/reset/delegation lineage, moves
 * into, between and out of projects, compaction, deletes, rewinds, hiding), every message indexed
 * with the deterministic test embedder, then random callers search with random queries, roles and
 * limits, through the matrix cache (reused across calls, so stale-cache bugs would show), whose
 * certified int8 path must return exactly the uncached float32 scan's hits. Oracle:
 * every hit is a live-or-compacted message of a non-hidden session in the caller's project (or its
 * own compression history when it has none), never the caller's own live message, of an allowed
 * role; and nothing in scope that ranks above the last hit is missing. Zero leaks is the only pass.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import {
  appendMessages,
  compactMessages,
  createBranch,
  createContinuation,
  createDelegation,
  createProject,
  createReset,
  createSession,
  deleteMessage,
  getSession,
  ownHistorySessionIds,
  rewindSession,
  setSessionProject,
  updateSession,
} from '@recall/store';
import { MatrixCache, type SemanticScope } from '../src/index.js';
import { searchAllowedSet } from '../src/exact-search.js';
import { allowedSetFor, searchScope } from '../src/sqlite/exact-search.js';
import { dotAt } from '../src/vector-scan.js';
import { createFingerprint, indexMessage, tempDb, testEmbed } from './support/world.js';

const VOCAB = ['backoff', 'retry', 'deploy', 'jitter', 'rust', 'kafka', 'lag', 'timeout', 'cache', 'vector'];
const ROLES = MESSAGE_ROLES.filter((r) => r !== 'system') as MessageRole[];
const msgsArb = fc.array(fc.record({ role: fc.constantFrom(...ROLES), words: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 4 });

const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('root' as const), project: fc.integer({ min: -1, max: 2 }), messages: msgsArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('compression' as const, 'branch' as const, 'reset' as const, 'delegation' as const), parent: fc.nat(), messages: msgsArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), target: fc.nat(), project: fc.integer({ min: -1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('compact' as const, 'rewind' as const, 'hide' as const, 'delete' as const), target: fc.nat() }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

const worldArb = fc.record({
  projects: fc.integer({ min: 1, max: 3 }),
  ops: fc.array(opArb, { minLength: 2, maxLength: 14 }),
  calls: fc.array(
    fc.record({ caller: fc.nat(), query: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')), limit: fc.integer({ min: 1, max: 8 }), roles: fc.option(fc.subarray(ROLES, { minLength: 1 }), { nil: undefined }) }),
    { minLength: 1, maxLength: 6 },
  ),
});

interface World {
  db: RecallDatabase;
  projectIds: string[];
  sessionIds: string[];
  messageIds: number[];
}

function latestSegment(db: RecallDatabase, id: string): string {
  const next = db.raw.prepare("select id from sessions where parent_session_id = ? and lineage = 'compression'").pluck();
  let current = id;
  for (let child = next.get(current) as string | undefined; child !== undefined; child = next.get(current) as string | undefined) current = child;
  return current;
}

function applyOp(w: World, fp: { id: number; dims: number }, op: Op): void {
  const pick = (n: number) => (w.sessionIds.length > 0 ? w.sessionIds[n % w.sessionIds.length]! : null);
  const projectOf = (n: number) => (n < 0 ? null : (w.projectIds[n % w.projectIds.length] ?? null));
  let id: string;
  switch (op.op) {
    case 'root':
      id = createSession(w.db, { projectId: projectOf(op.project) }).id;
      break;
    case 'compression':
    case 'branch':
    case 'reset':
    case 'delegation': {
      const parent = pick(op.parent);
      if (parent === null) id = createSession(w.db, {}).id;
      else if (op.op === 'compression') id = createContinuation(w.db, latestSegment(w.db, parent)).session.id;
      else if (op.op === 'branch') id = createBranch(w.db, parent).id;
      else if (op.op === 'reset') id = createReset(w.db, parent).id;
      else id = createDelegation(w.db, parent).id;
      break;
    }
    case 'move': {
      const target = pick(op.target);
      if (target !== null) setSessionProject(w.db, target, projectOf(op.project));
      return;
    }
    default: {
      const target = pick(op.target);
      if (target === null) return;
      const first = w.db.raw.prepare("select min(id) from messages where session_id = ? and visibility in ('live', 'compacted')").pluck().get(target) as number | null;
      if (op.op === 'hide') updateSession(w.db, target, { hidden: true });
      else if (first === null) return;
      else if (op.op === 'compact') compactMessages(w.db, target, first);
      else if (op.op === 'rewind') rewindSession(w.db, target, first);
      else deleteMessage(w.db, first);
      return;
    }
  }
  w.sessionIds.push(id);
  const inserted = appendMessages(w.db, id, op.messages.map((m) => ({ role: m.role, content: m.words.join(' ') }))).messages;
  for (const m of inserted) indexMessage(w.db, fp, m.id);
  w.messageIds.push(...inserted.map((m) => m.id));
}

describe('semantic retrieval isolation (property)', () => {
  test('hits stay in the caller scope, respect roles and visibility, and nothing better in scope is missed', { timeout: 180_000 }, () => {
    let checked = 0;
    fc.assert(
      fc.property(worldArb, (spec) => {
        const db = tempDb();
        const fp = createFingerprint(db);
        const w: World = { db, projectIds: Array.from({ length: spec.projects }, (_, i) => createProject(db, { name: `P${i}` }).id), sessionIds: [], messageIds: [] };
        const cache = new MatrixCache();
        const memoryCache = new MatrixCache({ rescoreFrom: 'memory' });
        for (const op of spec.ops) applyOp(w, fp, op);
        if (w.sessionIds.length === 0) return;
        for (const call of spec.calls) {
          const caller = getSession(db, w.sessionIds[call.caller % w.sessionIds.length]!);
          const scope: SemanticScope =
            caller.projectId !== null
              ? { kind: 'project', projectId: caller.projectId, currentSessionId: caller.id }
              : { kind: 'own', projectId: null, currentSessionId: caller.id, sessionIds: ownHistorySessionIds(db, caller.id) };
          const query = testEmbed(call.query);
          const options = { limit: call.limit, roles: call.roles };
          const hits = searchScope(db, cache, scope, fp.id, fp.dims, query, options);
          // The int8 path (int8 rows cached, float32 read from SQLite or kept; usearch or JS kernel)
          // returns exactly the plain float32 scan's hits: ids, scores, order.
          const float32 = searchAllowedSet(allowedSetFor(db, null, scope, fp.id, fp.dims), scope, query, options);
          expect(hits).toEqual(float32);
          expect(searchScope(db, memoryCache, scope, fp.id, fp.dims, query, options)).toEqual(float32);
          expect(searchScope(db, cache, scope, fp.id, fp.dims, query, { ...options, backend: 'js' })).toEqual(float32);
          // The oracle, straight from the rows.
          const eligible = db.raw
            .prepare(
              `select m.id, m.role, m.visibility, m.session_id, s.project_id, s.hidden, c.vector from messages m join sessions s on s.id = m.session_id join semantic_chunks c on c.message_id = m.id and c.fingerprint_id = ? and c.status = 'ready'`,
            )
            .all(fp.id) as Array<{ id: number; role: MessageRole; visibility: string; session_id: string; project_id: string | null; hidden: number; vector: Buffer }>;
          const own = new Set(scope.kind === 'own' ? scope.sessionIds : []);
          const inScope = eligible.filter(
            (r) =>
              r.hidden === 0 &&
              (r.visibility === 'live' || r.visibility === 'compacted') &&
              (scope.kind === 'project' ? r.project_id === scope.projectId : r.project_id === null && own.has(r.session_id)) &&
              !(r.session_id === caller.id && r.visibility === 'live') &&
              (!call.roles || call.roles.includes(r.role)),
          );
          const allowedIds = new Set(inScope.map((r) => r.id));
          for (const h of hits) {
            checked++;
            expect(allowedIds.has(h.messageId), `leak: message ${h.messageId} for caller ${caller.id}`).toBe(true);
          }
          expect(new Set(hits.map((h) => h.messageId)).size).toBe(hits.length);
          expect(hits.length).toBe(Math.min(call.limit, allowedIds.size));
          // Exactness: no in-scope message scores above the weakest hit without being a hit.
          if (hits.length > 0) {
            const weakest = hits[hits.length - 1]!.score;
            const score = (r: (typeof inScope)[number]) => dotAt(new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)), 0, query, fp.dims);
            for (const r of inScope) if (score(r) > weakest + 1e-12) expect(hits.some((h) => h.messageId === r.id), `missed ${r.id}`).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
    expect(checked).toBeGreaterThan(50);
  });
});
