/**
 * A dated semantic query (session_search `since`/`until`): the allowed set is read with the date
 * range in its SQL, before top-k — a closer vector outside the range never takes a slot — and the
 * project's cached matrix is neither used nor changed by it. Real SQLite files, deterministic test
 * embedder.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession } from '@recall/store';
import { MatrixCache, type SemanticScope } from '../src/index.js';
import { searchAllowedSet } from '../src/exact-search.js';
import { allowedSetFor } from '../src/sqlite/exact-search.js';
import { createFingerprint, indexAll, tempDb, testEmbed } from './support/world.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);

describe('dated allowed set', () => {
  test.each([
    [{}, ['old', 'new']],
    [{ since: T0 + 5 * DAY }, ['new']],
    [{ until: T0 + 5 * DAY }, ['old']],
    [{ since: T0 + 20 * DAY }, []],
  ])('%j', (dates, expected) => {
    const db = tempDb();
    const fp = createFingerprint(db);
    const p = createProject(db, { name: 'P' });
    const q = createProject(db, { name: 'Q' });
    const s = createSession(db, { projectId: p.id });
    const [old, recent] = appendMessages(db, s.id, [
      { role: 'user', content: 'kafka consumer lag spikes at night', createdAt: T0 + DAY },
      { role: 'user', content: 'consumer lag again', createdAt: T0 + 10 * DAY },
    ]).messages;
    const other = createSession(db, { projectId: q.id });
    const [foreign] = appendMessages(db, other.id, [{ role: 'user', content: 'kafka consumer lag spikes at night', createdAt: T0 + 10 * DAY }]).messages;
    indexAll(db, fp, [old!.id, recent!.id, foreign!.id]);
    const caller = createSession(db, { projectId: p.id });
    const scope: SemanticScope = { kind: 'project', projectId: p.id, currentSessionId: caller.id };
    const cache = new MatrixCache();
    const undated = allowedSetFor(db, cache, scope, fp.id, fp.dims);
    const set = allowedSetFor(db, cache, scope, fp.id, fp.dims, dates);
    const hits = searchAllowedSet(set, scope, testEmbed('kafka consumer lag spikes at night'), { limit: 1 });
    const name = (id: number) => (id === old!.id ? 'old' : id === recent!.id ? 'new' : 'foreign');
    expect(hits.map((h) => name(h.messageId))).toEqual(expected.slice(0, 1));
    expect(set.rows).toBe(expected.length);
    // the cached project matrix is the undated one, before and after
    expect(allowedSetFor(db, cache, scope, fp.id, fp.dims)).toBe(undated);
    expect(undated.rows).toBe(2);
  });
});
