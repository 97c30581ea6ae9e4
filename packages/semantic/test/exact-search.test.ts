/**
 * The allowed set and the exact search over it, on real SQLite files with a deterministic test
 * embedder: the project filter is applied before top-k (a small project keeps its best hits while a
 * neighbour holds 100k closer vectors), the best chunk anchors a message, role filters and the
 * caller's own live messages are applied before ranking, a project-less caller sees only its own
 * compression history, other fingerprints are never compared, and the per-project matrix cache is
 * rebuilt after every kind of change that can alter the allowed set.
 */
import { describe, expect, test } from 'vitest';
import {
  appendMessages,
  bulkWrite,
  compactMessages,
  createContinuation,
  createProject,
  createSession,
  deleteMessage,
  editMessage,
  ownHistorySessionIds,
  rewindSession,
  setSessionProject,
  updateSession,
} from '@recall/store';
import type { RecallDatabase } from '@recall/schema';
import { MatrixCache, type SemanticScope } from '../src/index.js';
import { searchAllowedSet, StaleVectorError } from '../src/exact-search.js';
import { allowedSetFor, searchScope } from '../src/sqlite/exact-search.js';
import { vectorToBlob } from '../src/provider.js';
import { createFingerprint, indexAll, indexMessage, indexSameVector, tempDb, testEmbed, TEST_DIMS } from './support/world.js';

function scopeOf(db: RecallDatabase, sessionId: string): SemanticScope {
  const s = db.raw.prepare('select project_id from sessions where id = ?').get(sessionId) as { project_id: string | null };
  return s.project_id !== null
    ? { kind: 'project', projectId: s.project_id, currentSessionId: sessionId }
    : { kind: 'own', projectId: null, currentSessionId: sessionId, sessionIds: ownHistorySessionIds(db, sessionId) };
}

function search(db: RecallDatabase, cache: MatrixCache | null, fp: { id: number; dims: number }, callerId: string, query: string, limit = 5, roles?: Array<'user' | 'assistant'>) {
  const scope = scopeOf(db, callerId);
  return searchAllowedSet(allowedSetFor(db, cache, scope, fp.id, fp.dims), scope, testEmbed(query), { limit, roles });
}

describe('exact search over the allowed set', () => {
  test('filter before top-k: a project with 3 vectors gets its best hits while another holds 100k closer ones', () => {
    const db = tempDb();
    const fp = createFingerprint(db);
    const small = createProject(db, { name: 'small' });
    const big = createProject(db, { name: 'big' });
    const s = createSession(db, { projectId: small.id });
    const mine = appendMessages(db, s.id, [
      { role: 'user', content: 'the deploy pipeline broke on friday' },
      { role: 'assistant', content: 'rollback the release and check the pipeline logs' },
      { role: 'user', content: 'lunch plans for the team' },
    ]).messages;
    indexAll(db, fp, mine.map((m) => m.id));
    const query = 'deploy pipeline broke';
    const exact = testEmbed(query);
    const b = createSession(db, { projectId: big.id });
    const N = 100_000;
    const ids = bulkWrite(db, () => appendMessages(db, b.id, Array.from({ length: N }, (_, i) => ({ role: 'user' as const, content: `noise ${i}` }))).messages.map((m) => m.id));
    indexSameVector(db, fp, ids, exact); // identical to the query: score 1, closer than anything in `small`
    const caller = createSession(db, { projectId: small.id });
    const hits = search(db, new MatrixCache(), fp, caller.id, query, 3);
    expect(hits.map((h) => h.messageId).sort((x, y) => x - y)).toEqual(mine.map((m) => m.id));
    expect(hits[0]!.messageId).toBe(mine[0]!.id);
    expect(hits.every((h) => h.score < 0.999)).toBe(true);
    // and the big project, asked from inside, sees only its own
    const bigCaller = createSession(db, { projectId: big.id });
    expect(search(db, null, fp, bigCaller.id, query, 3).every((h) => h.sessionId === b.id)).toBe(true);
  }, 120_000);

  test('best chunk per message anchors the hit with its range', () => {
    const db = tempDb();
    const fp = createFingerprint(db);
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    const text = 'we talked about gardening tomatoes. later the database migration failed with a lock timeout';
    const [m] = appendMessages(db, s.id, [{ role: 'user', content: text }]).messages;
    const cut = text.indexOf('later');
    indexMessage(db, fp, m!.id, [
      { start: 0, end: cut },
      { start: cut, end: text.length },
    ]);
    const caller = createSession(db, { projectId: p.id });
    const hits = search(db, null, fp, caller.id, 'database migration lock timeout');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ messageId: m!.id, start: cut, end: text.length });
  });

  test('roles are filtered and the caller\'s own live messages excluded before ranking; its compacted ones stay', () => {
    const db = tempDb();
    const fp = createFingerprint(db);
    const p = createProject(db, { name: 'P' });
    const other = createSession(db, { projectId: p.id });
    const [u, a] = appendMessages(db, other.id, [
      { role: 'user', content: 'vector index rebuild' },
      { role: 'assistant', content: 'vector index rebuild done' },
    ]).messages;
    const caller = createSession(db, { projectId: p.id });
    const [ownOld, ownLive] = appendMessages(db, caller.id, [
      { role: 'user', content: 'vector index rebuild' },
      { role: 'user', content: 'vector index rebuild' },
    ]).messages;
    compactMessages(db, caller.id, ownOld!.id);
    indexAll(db, fp, [u!.id, a!.id, ownOld!.id, ownLive!.id]);
    const ids = (roles?: Array<'user' | 'assistant'>) => search(db, new MatrixCache(), fp, caller.id, 'vector index rebuild', 10, roles).map((h) => h.messageId).sort((x, y) => x - y);
    expect(ids()).toEqual([u!.id, a!.id, ownOld!.id]);
    expect(ids(['assistant'])).toEqual([a!.id]);
    expect(ids(['user'])).toEqual([u!.id, ownOld!.id]);
  });

  test('a caller without a project sees only its own compression history', () => {
    const db = tempDb();
    const fp = createFingerprint(db);
    const p = createProject(db, { name: 'P' });
    const root = createSession(db, { projectId: null });
    const [old] = appendMessages(db, root.id, [{ role: 'user', content: 'the secret recipe uses saffron' }]).messages;
    const cont = createContinuation(db, root.id).session;
    const stranger = createSession(db, { projectId: null });
    const [theirs] = appendMessages(db, stranger.id, [{ role: 'user', content: 'the secret recipe uses saffron' }]).messages;
    const inProject = createSession(db, { projectId: p.id });
    const [projectMsg] = appendMessages(db, inProject.id, [{ role: 'user', content: 'the secret recipe uses saffron' }]).messages;
    indexAll(db, fp, [old!.id, theirs!.id, projectMsg!.id]);
    expect(search(db, null, fp, cont.id, 'secret recipe saffron').map((h) => h.messageId)).toEqual([old!.id]);
    expect(search(db, null, fp, stranger.id, 'secret recipe saffron')).toEqual([]); // its own live message is in its context
  });

  test('vectors of another fingerprint are never compared', () => {
    const db = tempDb();
    const fpOld = createFingerprint(db, 'old-model');
    const fpNew = createFingerprint(db, 'new-model');
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    const [a, b] = appendMessages(db, s.id, [
      { role: 'user', content: 'kafka consumer lag' },
      { role: 'user', content: 'kafka consumer lag again' },
    ]).messages;
    indexMessage(db, fpOld, a!.id);
    indexMessage(db, fpNew, b!.id);
    const caller = createSession(db, { projectId: p.id });
    expect(search(db, new MatrixCache(), fpNew, caller.id, 'kafka consumer lag').map((h) => h.messageId)).toEqual([b!.id]);
    expect(search(db, new MatrixCache(), fpOld, caller.id, 'kafka consumer lag').map((h) => h.messageId)).toEqual([a!.id]);
  });
});

describe('matrix cache invalidation', () => {
  function setup() {
    const db = tempDb();
    const fp = createFingerprint(db);
    const p = createProject(db, { name: 'P' });
    const q = createProject(db, { name: 'Q' });
    const s = createSession(db, { projectId: p.id });
    const msgs = appendMessages(db, s.id, [
      { role: 'user', content: 'flaky integration test on ci' },
      { role: 'assistant', content: 'the flaky integration test needs a retry' },
    ]).messages;
    const elsewhere = createSession(db, { projectId: q.id });
    const [foreign] = appendMessages(db, elsewhere.id, [{ role: 'user', content: 'flaky integration test in Q' }]).messages;
    indexAll(db, fp, [...msgs.map((m) => m.id), foreign!.id]);
    const caller = createSession(db, { projectId: p.id });
    const cache = new MatrixCache();
    const run = () => search(db, cache, fp, caller.id, 'flaky integration test', 10).map((h) => h.messageId).sort((x, y) => x - y);
    return { db, fp, p, q, s, msgs, elsewhere, foreign: foreign!, cache, run };
  }

  test('an unchanged project is served from the cache', () => {
    const w = setup();
    const first = w.run();
    expect(w.run()).toEqual(first);
    expect(w.cache.snapshot()).toMatchObject({ builds: 1, hits: 1 });
  });

  test.each([
    ['new vectors', (w: ReturnType<typeof setup>) => {
      const [m] = appendMessages(w.db, w.s.id, [{ role: 'user', content: 'flaky integration test once more' }]).messages;
      indexMessage(w.db, w.fp, m!.id);
      return [...w.msgs.map((x) => x.id), m!.id];
    }],
    ['an edit (its chunks go until re-embedded)', (w: ReturnType<typeof setup>) => {
      editMessage(w.db, w.msgs[0]!.id, 'something else entirely');
      return [w.msgs[1]!.id];
    }],
    ['a delete', (w: ReturnType<typeof setup>) => {
      deleteMessage(w.db, w.msgs[1]!.id);
      return [w.msgs[0]!.id];
    }],
    ['a rewind', (w: ReturnType<typeof setup>) => {
      rewindSession(w.db, w.s.id, w.msgs[0]!.id);
      return [w.msgs[0]!.id];
    }],
    ['a move out', (w: ReturnType<typeof setup>) => {
      setSessionProject(w.db, w.s.id, w.q.id);
      return [];
    }],
    ['a move in', (w: ReturnType<typeof setup>) => {
      setSessionProject(w.db, w.elsewhere.id, w.p.id);
      return [...w.msgs.map((x) => x.id), w.foreign.id];
    }],
    ['hiding a session', (w: ReturnType<typeof setup>) => {
      updateSession(w.db, w.s.id, { hidden: true });
      return [];
    }],
  ])('%s is seen by the next search', (_name, change) => {
    const w = setup();
    expect(w.run()).toEqual(w.msgs.map((m) => m.id));
    const expected = change(w).sort((x, y) => x - y);
    expect(w.run()).toEqual(expected);
    expect(w.cache.snapshot().builds).toBe(2);
  });

  test('a byte budget evicts the least recently used project; a set larger than the budget is not kept', () => {
    const w = setup();
    const cache = new MatrixCache({ maxBytes: 1 });
    const scope = scopeOf(w.db, w.s.id);
    allowedSetFor(w.db, cache, scope, w.fp.id, TEST_DIMS);
    allowedSetFor(w.db, cache, scope, w.fp.id, TEST_DIMS);
    expect(cache.snapshot()).toMatchObject({ builds: 2, entries: 0 });
  });

  test('a vector changed behind the generation (a trigger gap) is caught by the int8 check and the entry rebuilt', () => {
    const w = setup();
    const scope = scopeOf(w.db, createSession(w.db, { projectId: w.p.id }).id);
    const query = testEmbed('flaky integration test');
    const options = { limit: 10 };
    const before = searchScope(w.db, w.cache, scope, w.fp.id, TEST_DIMS, query, options);
    expect(before.map((h) => h.messageId).sort((x, y) => x - y)).toEqual(w.msgs.map((m) => m.id));
    // Rewrite one ready vector and put the generation back, as a missed trigger would.
    const gen = w.db.raw.prepare('select gen from semantic_generation where project_id = ?').pluck().get(w.p.id) as number;
    w.db.raw.prepare('update semantic_chunks set vector = ? where message_id = ?').run(vectorToBlob(testEmbed('completely unrelated words')), w.msgs[0]!.id);
    w.db.raw.prepare('update semantic_generation set gen = ? where project_id = ?').run(gen, w.p.id);
    // The bare cached set notices (its candidates' rows no longer quantise to the int8 copy) …
    expect(() => searchAllowedSet(allowedSetFor(w.db, w.cache, scope, w.fp.id, TEST_DIMS), scope, query, options)).toThrow(StaleVectorError);
    // … and the search entry point rebuilds and answers from the current rows.
    const after = searchScope(w.db, w.cache, scope, w.fp.id, TEST_DIMS, query, options);
    expect(after).toEqual(searchAllowedSet(allowedSetFor(w.db, null, scope, w.fp.id, TEST_DIMS), scope, query, options));
    expect(w.cache.snapshot().builds).toBe(2);
  });
});
