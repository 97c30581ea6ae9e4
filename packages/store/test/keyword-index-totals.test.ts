/**
 * BM25 statistics after rewrites (issue 22, rank1m): moves (scope-token rewrites), edits, deletes
 * and purges must leave the keyword index's scores exactly as a fresh build of the same messages
 * gives them. FTS5's bm25 reads the table's row count and column-length totals; a removal that
 * drops a row's postings but not its share of those totals (contentless_delete=1, the 0002 table)
 * shifts every score a little with every rewrite, for good.
 */
import type { RecallDatabase } from '@recall/schema';
import { describe, expect, test } from 'vitest';
import { FTS_TABLE, lastMoveSeq, movesSince, rebuildKeywordIndex } from '../src/fts-index.js';
import { keywordSearch, type KeywordScope } from '../src/keyword-search.js';
import { appendMessages, deleteMessage, editMessage } from '../src/messages.js';
import { setSessionProject } from '../src/moves.js';
import { createProject } from '../src/projects.js';
import { deleteConversation } from '../src/purge.js';
import { createSession } from '../src/sessions.js';
import { writeTransaction } from '../src/transaction.js';
import { tempDb } from './support/temp-db.js';

const TEXTS = [
  'we decided on exponential backoff for the retry loop',
  'the retry loop needs a jitter, backoff alone is not enough',
  '我们决定清蒸鲈鱼，上屉蒸八分钟',
  '周末去公园散步，带上小狗',
  'busy_timeout is 5000 ms in the config',
  '鲈鱼要新鲜，蒸的时间不要太长',
  'the config file lives in ~/.recall/config.toml',
  '小狗很喜欢在公园里跑',
];
const QUERIES = ['retry backoff', '清蒸鱼怎么做', '公园 小狗', 'config timeout', '蒸'];

/** Three projects, six sessions of four messages each (texts cycled). */
function build(db: RecallDatabase): string[] {
  writeTransaction(db, () => ['p_a', 'p_b', 'p_c'].forEach((id) => createProject(db, { id, name: id })));
  const sessions: string[] = [];
  for (let i = 0; i < 6; i++) {
    const id = `s${i}`;
    createSession(db, { id, projectId: ['p_a', 'p_b', 'p_c'][i % 3]!, source: 'desktop' });
    appendMessages(db, id, Array.from({ length: 4 }, (_, k) => ({ role: k % 2 === 0 ? 'user' : 'assistant', content: TEXTS[(i * 4 + k) % TEXTS.length]! })));
    sessions.push(id);
  }
  return sessions;
}

/** Every hit's score for every query in every project (message id → score, rounded to 1e-9). */
function scores(db: RecallDatabase): Record<string, Record<number, number>> {
  const out: Record<string, Record<number, number>> = {};
  for (const projectId of ['p_a', 'p_b', 'p_c']) {
    const scope: KeywordScope = { kind: 'project', projectId };
    for (const q of QUERIES) {
      // Raw BM25 order: no re-rank, no reply credit, every match.
      const hits = keywordSearch(db, scope, q, { limit: 500, titleLimit: 0, coverageRerank: false, replyCredit: false, scopeTokenMinMatches: 0 }).hits;
      out[`${projectId} ${q}`] = Object.fromEntries(hits.map((h) => [h.messageId, Math.round(h.score * 1e9) / 1e9]));
    }
  }
  return out;
}

/** FTS5's own totals record (row count, then tokens per column): SQLite varints, high bits first. */
function totals(db: RecallDatabase): number[] {
  const block = db.raw.prepare(`select block from ${FTS_TABLE}_data where id = 1`).pluck().get() as Buffer;
  const out: number[] = [];
  let v = 0;
  for (const byte of block) {
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      out.push(v);
      v = 0;
    }
  }
  return out;
}

type Step = { name: string; run: (db: RecallDatabase, sessions: string[]) => void };
const STEPS: Step[] = [
  {
    name: '20 moves back and forth',
    run: (db, sessions) => {
      for (let n = 0; n < 10; n++) {
        setSessionProject(db, sessions[0]!, 'p_b');
        setSessionProject(db, sessions[0]!, 'p_a');
      }
    },
  },
  {
    name: 'moves queued by the trigger and drained later (two moves before the drain, one to no project)',
    run: (db, sessions) => {
      db.raw.prepare('update sessions set project_id = ? where id = ?').run('p_c', sessions[1]);
      db.raw.prepare('update sessions set project_id = ? where id = ?').run(null, sessions[1]);
      db.raw.prepare('update sessions set project_id = ? where id = ?').run('p_a', sessions[2]);
      // The next index write drains the queue; the new message gets the session's current project.
      appendMessages(db, sessions[1]!, [{ role: 'user', content: 'retry backoff once more' }]);
      setSessionProject(db, sessions[1]!, 'p_b');
    },
  },
  {
    name: 'a queued move lost behind the index (its queue row deleted), then a proper move: rebuilt, not corrupted',
    run: (db, sessions) => {
      // The file was changed behind the index's triggers: the rows still carry p_c's token (first
      // round) or p_a's (later ones), the queue no longer says so. The next move must not 'delete'
      // them with p_b's values (which corrupts the contentless table: SQLITE_CORRUPT_VTAB later).
      db.raw.prepare('update sessions set project_id = ? where id = ?').run('p_b', sessions[5]);
      db.raw.prepare('delete from keyword_scope_dirty').run();
      setSessionProject(db, sessions[5]!, null);
      db.raw.prepare(`insert into ${FTS_TABLE} (${FTS_TABLE}, rank) values ('integrity-check', 1)`).run();
      setSessionProject(db, sessions[5]!, 'p_a');
    },
  },
  {
    name: 'edits (twice each, back to the first text) and a real edit',
    run: (db) => {
      const ids = db.raw.prepare('select id, content from messages order by id limit 5').all() as { id: number; content: string }[];
      for (const m of ids) {
        editMessage(db, m.id, 'an edited text about the retry loop and 公园');
        editMessage(db, m.id, m.content);
      }
      editMessage(db, ids[0]!.id, '清蒸鲈鱼的做法：上屉蒸八分钟');
    },
  },
  {
    name: 'deletes (one twice) and a purged conversation',
    run: (db, sessions) => {
      const ids = db.raw.prepare('select id from messages where session_id = ? order by id').pluck().all(sessions[3]) as number[];
      deleteMessage(db, ids[0]!);
      deleteMessage(db, ids[0]!);
      deleteMessage(db, ids[2]!);
      if (db.raw.prepare('select 1 from sessions where id = ?').get(sessions[4])) deleteConversation(db, sessions[4]!);
    },
  },
];

describe('BM25 totals after rewrites equal a fresh build', () => {
  test.each(STEPS)('$name', ({ run }) => {
    const db = tempDb();
    const sessions = build(db);
    const before = totals(db);
    for (let round = 0; round < 3; round++) run(db, sessions);
    const rewritten = scores(db);
    const rewrittenTotals = totals(db);
    rebuildKeywordIndex(db.raw);
    expect(rewrittenTotals).toEqual(totals(db));
    expect(rewritten).toEqual(scores(db));
    // The row count is the number of indexed messages, whatever happened to the others.
    const indexed = db.raw.prepare("select count(*) from messages where visibility <> 'deleted'").pluck().get() as number;
    expect(totals(db)[0]).toBe(indexed);
    expect(before.length).toBe(4);
    db.close();
  });

  test('every step after another, then an integrity check', () => {
    const db = tempDb();
    const sessions = build(db);
    for (const step of STEPS) step.run(db, sessions);
    const rewritten = scores(db);
    const rewrittenTotals = totals(db);
    // FTS5's own check of the index structures (rank 1: also against the row sizes).
    db.raw.prepare(`insert into ${FTS_TABLE} (${FTS_TABLE}, rank) values ('integrity-check', 1)`).run();
    rebuildKeywordIndex(db.raw);
    expect(rewrittenTotals).toEqual(totals(db));
    expect(rewritten).toEqual(scores(db));
    db.close();
  });
});

describe('the move log (keyword_scope_moves, migration 0009)', () => {
  test('a move that rewrites rows is logged once; an empty session, a move to the same project and an append are not', () => {
    const db = tempDb();
    createProject(db, { id: 'p_a', name: 'A' });
    createProject(db, { id: 'p_b', name: 'B' });
    createSession(db, { id: 's1', projectId: 'p_a' });
    createSession(db, { id: 'empty', projectId: 'p_a' });
    appendMessages(db, 's1', [{ role: 'user', content: 'one' }]);
    expect(lastMoveSeq(db.raw)).toBe(0);
    setSessionProject(db, 's1', 'p_b');
    setSessionProject(db, 'empty', 'p_b');
    setSessionProject(db, 's1', 'p_b');
    appendMessages(db, 's1', [{ role: 'user', content: 'two' }]);
    setSessionProject(db, 's1', null);
    expect(movesSince(db.raw, 0, 10)).toEqual({
      moves: [
        { seq: 1, sessionId: 's1', fromProject: 'p_a', toProject: 'p_b' },
        { seq: 2, sessionId: 's1', fromProject: 'p_b', toProject: null },
      ],
      last: 2,
    });
    expect(movesSince(db.raw, 1, 10)?.moves.map((m) => m.seq)).toEqual([2]);
    expect(movesSince(db.raw, 2, 10)).toEqual({ moves: [], last: 2 });
    expect(movesSince(db.raw, 0, 1)).toBeNull(); // more than asked for
    expect(movesSince(db.raw, 3, 10)).toBeNull(); // ahead of the log
  });

  test('old moves are pruned: a seq before the kept ones gets null, seq keeps growing', () => {
    const db = tempDb();
    createProject(db, { id: 'p_a', name: 'A' });
    createProject(db, { id: 'p_b', name: 'B' });
    createSession(db, { id: 's1', projectId: 'p_a' });
    appendMessages(db, 's1', [{ role: 'user', content: 'one' }]);
    for (let i = 0; i < 1100; i++) setSessionProject(db, 's1', i % 2 === 0 ? 'p_b' : 'p_a');
    expect(lastMoveSeq(db.raw)).toBe(1100);
    const kept = db.raw.prepare('select count(*) from keyword_scope_moves').pluck().get() as number;
    expect(kept).toBeGreaterThanOrEqual(1024);
    expect(kept).toBeLessThan(1100);
    expect(movesSince(db.raw, 0, 2000)).toBeNull();
    expect(movesSince(db.raw, 1090, 64)?.moves.map((m) => m.seq)).toEqual([1091, 1092, 1093, 1094, 1095, 1096, 1097, 1098, 1099, 1100]);
  });
});
