/**
 * keywordSearch / searchTitles on real temp SQLite files, written through the store's own write
 * path (createSession, appendMessages, editMessage, deleteMessage, rewind, compact, moves): CJK and
 * identifier matching, natural-language OR, visibility, hidden sessions, roles, sorting, automated
 * sources, titles, scopes, the scope-token pre-filter after moves, index rebuild after upgrade,
 * literal fallback, snippets, and the EXPLAIN QUERY PLAN of the project filter.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FTS_TABLE_SQL, KEYWORD_INDEX_VERSION, indexMessages, rebuildKeywordIndex, refreshScopeTokens, reindexSessionsScope, scopeToken, unindexMessages } from '../src/fts-index.js';
import {
  describeQuery,
  HIGHLIGHT_CLOSE,
  HIGHLIGHT_OPEN,
  keywordSearch,
  keywordSearchSql,
  SCOPE_TOKEN_MIN_MATCHES,
  searchTitles,
  type KeywordScope,
} from '../src/keyword-search.js';
import { appendMessages, compactMessages, deleteMessage, editMessage, rewindSession } from '../src/messages.js';
import { setSessionProject } from '../src/moves.js';
import { createProject } from '../src/projects.js';
import { createSession } from '../src/sessions.js';
import { createDelegation } from '../src/lineage.js';
import { tempDb, tempDir } from './support/temp-db.js';

type Msg = { role?: 'user' | 'assistant' | 'system' | 'tool'; content: string; createdAt?: number };

function setup(db: RecallDatabase): { p: string; q: string } {
  const p = createProject(db, { id: 'p_one', name: 'One' }).id;
  const q = createProject(db, { id: 'p_two', name: 'Two' }).id;
  return { p, q };
}

function session(db: RecallDatabase, id: string, projectId: string | null, messages: Msg[], extra: { title?: string; source?: string; hidden?: boolean } = {}): number[] {
  createSession(db, { id, projectId, ...extra });
  return appendMessages(
    db,
    id,
    messages.map((m, i) => ({ role: m.role ?? (i % 2 === 0 ? 'user' : 'assistant'), content: m.content, createdAt: m.createdAt ?? 1_000 + i })),
  ).messages.map((m) => m.id);
}

const inProject = (projectId: string): KeywordScope => ({ kind: 'project', projectId });
const ids = (db: RecallDatabase, scope: KeywordScope, query: string, options = {}): number[] => keywordSearch(db, scope, query, options).hits.map((h) => h.messageId);

describe('matching', () => {
  const texts = [
    '当然可以，我先将鲈鱼洗净，葱姜蒜切成细丝然后放在鱼肚里，再用盐和料酒腌制一会儿。最后放蒸锅里蒸10分钟左右，就可以了。',
    '修复 busy_timeout 问题',
    'please edit config.yaml and the foo-bar module',
    'the client died with E_CONN_RESET again',
    'We decided the retry backoff should be exponential, capped at 30 s.',
    '我喜欢喝茶',
    'ＦＵＬＬＷＩＤＴＨ text',
    'unrelated chatter about the weather',
  ];

  test.each([
    ['我上次说的那道蒸鱼要蒸多久？', 0],
    ['鲈鱼', 0],
    ['蒸', 0],
    ['茶', 5],
    ['busy_timeout', 1],
    ['修复 busy_timeout 问题', 1],
    ['BUSY_TIMEOUT', 1],
    ['问题', 1],
    ['config.yaml', 2],
    ['foo-bar', 2],
    ['E_CONN_RESET', 3],
    ['conn reset', 3],
    ['what did we decide about the retry backoff?', 4],
    ['fullwidth', 6],
    ['"retry backoff"', 4],
  ])('%j finds message %i first', (query, index) => {
    const db = tempDb();
    const { p } = setup(db);
    const msgIds = session(db, 's1', p, texts.map((content) => ({ content })));
    const found = ids(db, inProject(p), query);
    expect(found[0]).toBe(msgIds[index]);
  });

  test('a quoted phrase is required; words outside it only rank', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'retry then backoff' }, { content: 'retry backoff policy' }, { content: 'policy only' }]);
    expect(ids(db, inProject(p), '"retry backoff" policy')).toEqual([m[1]]);
  });

  test('natural questions do not require every word (OR, ranked by matches)', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'retry backoff is exponential' }, { content: 'retry once' }, { content: 'nothing here' }]);
    expect(ids(db, inProject(p), 'what did we decide about the retry backoff?')).toEqual([m[0], m[1]]);
  });

  test('English words match by stem and are marked in the snippet', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'We decided: retries use exponential backoff.' }, { content: 'unrelated' }]);
    const hit = keywordSearch(db, inProject(p), 'what was the decision to retry?').hits;
    expect(hit.map((h) => h.messageId)).toEqual([m[0]]);
    expect(hit[0]!.matchedTerms).toEqual(['retry']);
    expect(hit[0]!.snippet).toBe(`We decided: ${HIGHLIGHT_OPEN}retries${HIGHLIGHT_CLOSE} use exponential backoff.`);
    expect(keywordSearch(db, inProject(p), 'decide').hits[0]!.snippet).toContain(`${HIGHLIGHT_OPEN}decided${HIGHLIGHT_CLOSE}`);
  });

  test('only stop-words are still searched', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'what is it' }, { content: 'nothing' }]);
    const result = keywordSearch(db, inProject(p), 'what');
    expect(result.hits.map((h) => h.messageId)).toEqual([m[0]]);
    expect(result.query.notes.join(' ')).toMatch(/stop-words/);
  });

  test.each([
    ['%', 1],
    ['_', 2],
    ['->', 3],
    ['🙂', 4],
  ])('literal fallback for %j matches only the literal character', (query, index) => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'plain words' }, { content: '100% done' }, { content: 'snake_case' }, { content: 'a -> b' }, { content: 'smile 🙂' }]);
    const result = keywordSearch(db, inProject(p), query);
    expect(result.query.mode).toBe('literal');
    expect(result.hits.map((h) => h.messageId)).toEqual([m[index]]);
    expect(result.hits[0]!.matchedBy).toBe('literal');
    expect(result.hits[0]!.snippet).toContain(`${HIGHLIGHT_OPEN}${query}${HIGHLIGHT_CLOSE}`);
  });

  test('empty query returns nothing with a note', () => {
    const db = tempDb();
    const { p } = setup(db);
    session(db, 's1', p, [{ content: 'x' }]);
    const result = keywordSearch(db, inProject(p), '   ');
    expect(result.hits).toEqual([]);
    expect(result.notes.length).toBeGreaterThan(0);
  });
});

describe('result shape', () => {
  test('hit fields, snippet markers and matchedTerms', () => {
    const db = tempDb();
    const { p } = setup(db);
    const long = 'x '.repeat(300) + '我先将鲈鱼洗净，放蒸锅里蒸10分钟左右 busy_timeout ' + 'y '.repeat(300);
    const [id] = session(db, 's1', p, [{ content: long, createdAt: 42 }]);
    const result = keywordSearch(db, inProject(p), '鲈鱼 蒸 busy_timeout', { snippetChars: 80 });
    const hit = result.hits[0]!;
    expect(hit).toMatchObject({ messageId: id, sessionId: 's1', role: 'user', createdAt: 42, automated: false, matchedBy: 'index' });
    expect(hit.score).toBeGreaterThan(0);
    expect(hit.matchedTerms).toEqual(['鲈鱼', '蒸', 'busy_timeout']);
    expect(hit.snippet).toContain(`${HIGHLIGHT_OPEN}鲈鱼${HIGHLIGHT_CLOSE}`);
    expect(hit.snippet).toContain(`${HIGHLIGHT_OPEN}busy_timeout${HIGHLIGHT_CLOSE}`);
    expect(hit.snippet.startsWith('…')).toBe(true);
    expect(hit.snippet.endsWith('…')).toBe(true);
    expect(hit.snippet.length).toBeLessThan(140);
  });

  test('snippets keep the original spelling while matching normalised text', () => {
    const db = tempDb();
    const { p } = setup(db);
    session(db, 's1', p, [{ content: 'Set ＢＵＳＹ_Timeout now' }]);
    const hit = keywordSearch(db, inProject(p), 'busy_timeout').hits[0]!;
    expect(hit.snippet).toBe(`Set ${HIGHLIGHT_OPEN}ＢＵＳＹ_Timeout${HIGHLIGHT_CLOSE} now`);
  });

  test('describeQuery exposes the sanitised query', () => {
    expect(describeQuery('what about "retry backoff" AND config.yaml')).toMatchObject({
      terms: ['retry backoff', 'config.yaml'],
      requiredPhrases: ['retry backoff'],
      mode: 'index',
    });
  });
});

describe('visibility, hidden sessions, roles', () => {
  test('rewound and deleted rows never appear; compacted and edited rows do', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'alpha one' }, { content: 'alpha two' }, { content: 'alpha three' }, { content: 'alpha four' }]);
    compactMessages(db, 's1', m[0]!);
    deleteMessage(db, m[1]!);
    rewindSession(db, 's1', m[2]!);
    expect(ids(db, inProject(p), 'alpha').sort()).toEqual([m[0], m[2]]);
    editMessage(db, m[2]!, 'beta now');
    expect(ids(db, inProject(p), 'alpha')).toEqual([m[0]]);
    expect(ids(db, inProject(p), 'beta')).toEqual([m[2]]);
  });

  test('hidden sessions (delegations) are never searched', () => {
    const db = tempDb();
    const { p } = setup(db);
    session(db, 'root', p, [{ content: 'visible gamma' }]);
    const child = createDelegation(db, 'root', { id: 'child' });
    appendMessages(db, child.id, [{ role: 'assistant', content: 'secret gamma' }]);
    session(db, 'h', p, [{ content: 'hidden gamma' }], { hidden: true });
    const hits = keywordSearch(db, inProject(p), 'gamma').hits;
    expect(hits.map((h) => h.sessionId)).toEqual(['root']);
  });

  test.each([
    [['user'] as const, ['u']],
    [['assistant'] as const, ['a']],
    [['tool', 'system'] as const, ['t']],
    [[] as const, ['u', 'a', 't']],
  ])('roleFilter %j', (roles, expected) => {
    const db = tempDb();
    const { p } = setup(db);
    session(db, 's1', p, [
      { role: 'user', content: 'delta u' },
      { role: 'assistant', content: 'delta a' },
      { role: 'tool', content: 'delta t' },
    ]);
    const hits = keywordSearch(db, inProject(p), 'delta', { roleFilter: roles }).hits;
    expect(hits.map((h) => h.snippet.split(' ')[1]).sort()).toEqual([...expected].sort());
  });
});

describe('ranking and sorting', () => {
  test('BM25: more matched terms rank higher', () => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [{ content: 'retry' }, { content: 'retry backoff jitter' }, { content: 'retry backoff' }]);
    expect(ids(db, inProject(p), 'retry backoff jitter')).toEqual([m[1], m[2], m[0]]);
  });

  test('automated sources rank below interactive ones', () => {
    const db = tempDb();
    const { p } = setup(db);
    const [cron] = session(db, 'cron1', p, [{ content: 'deploy deploy deploy failed' }], { source: 'cron' });
    const [desk] = session(db, 'desk1', p, [{ content: 'the deploy went fine, nothing else to report here at all' }]);
    const hits = keywordSearch(db, inProject(p), 'deploy').hits;
    expect(hits.map((h) => h.messageId)).toEqual([desk, cron]);
    expect(hits.map((h) => h.automated)).toEqual([false, true]);
  });

  test.each([
    ['newest', [3, 2, 1]],
    ['oldest', [1, 2, 3]],
  ] as const)('sort %s reorders the relevance candidates by time', (sort, order) => {
    const db = tempDb();
    const { p } = setup(db);
    const m = session(db, 's1', p, [
      { content: 'epsilon epsilon epsilon', createdAt: 1 },
      { content: 'epsilon', createdAt: 3 },
      { content: 'epsilon epsilon', createdAt: 2 },
    ]);
    const byTime = new Map([
      [1, m[0]],
      [3, m[1]],
      [2, m[2]],
    ]);
    expect(ids(db, inProject(p), 'epsilon', { sort })).toEqual(order.map((t) => byTime.get(t)));
  });

  test('limit is bounded and applied after the scope filter', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    // Many better-ranked rows in another project must not push this project's rows out.
    session(db, 'other', q, Array.from({ length: 50 }, () => ({ content: 'zeta zeta zeta' })));
    const mine = session(db, 'mine', p, [{ content: 'zeta and many other words to lower its score' }]);
    expect(ids(db, inProject(p), 'zeta', { limit: 1 })).toEqual(mine);
    expect(keywordSearch(db, inProject(q), 'zeta', { limit: 10_000 }).hits.length).toBe(50);
  });
});

describe('titles', () => {
  test('title hits in scope, best first, automated last, excluded sessions out', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    session(db, 't1', p, [{ content: 'x' }], { title: 'Retry backoff design' });
    session(db, 't2', p, [{ content: 'x' }], { title: 'Backoff notes' });
    session(db, 't3', p, [{ content: 'x' }], { title: 'Retry backoff nightly', source: 'cron' });
    session(db, 't4', q, [{ content: 'x' }], { title: 'Retry backoff elsewhere' });
    session(db, 't5', p, [{ content: 'x' }], { title: '清蒸鲈鱼的做法' });
    const result = keywordSearch(db, { kind: 'project', projectId: p, excludeSessionIds: ['t2'] }, 'retry backoff');
    expect(result.titleHits.map((t) => t.sessionId)).toEqual(['t1', 't3']);
    expect(result.titleHits[0]!.matchedTerms).toEqual(['retry', 'backoff']);
    expect(searchTitles(db, inProject(p), '鲈鱼').map((t) => t.sessionId)).toEqual(['t5']);
    expect(keywordSearch(db, inProject(p), 'backoff', { titleLimit: 0 }).titleHits).toEqual([]);
  });
});

test.each([
  ['ＲＥＴＲＹ plan', 'retry'],
  ['ｒｅｔｒｙ plan', 'retry'],
  ['修复，ＡＰＩ超时', 'api'],
  ['版本２０２６', '2026'],
  ['busy_timeout notes', 'busy_timeout'],
  ['100% done', '100%'],
  ['RETRY plan', 'retry'],
  ['Retries everywhere', 'retrying'],
  ['Café notes', 'café'],
  ['清蒸鲈鱼的做法', '鲈鱼'],
])('title %j is found by %j (pre-filter keeps it)', (title, query) => {
  const db = tempDb();
  const { p } = setup(db);
  session(db, 't1', p, [{ content: 'x' }], { title });
  session(db, 't2', p, [{ content: 'x' }], { title: 'unrelated words' });
  expect(searchTitles(db, inProject(p), query).map((t) => t.sessionId)).toEqual(['t1']);
});

describe('scopes', () => {
  test('project scope never returns another project, NULL sessions or excluded sessions', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    session(db, 'a', p, [{ content: 'shared word' }]);
    session(db, 'b', q, [{ content: 'shared word' }]);
    session(db, 'c', null, [{ content: 'shared word' }]);
    session(db, 'd', p, [{ content: 'shared word' }]);
    const hits = keywordSearch(db, { kind: 'project', projectId: p, excludeSessionIds: ['d'] }, 'shared').hits;
    expect(hits.map((h) => h.sessionId)).toEqual(['a']);
  });

  test('sessions scope searches only the listed sessions; an empty list searches nothing', () => {
    const db = tempDb();
    setup(db);
    session(db, 'n1', null, [{ content: 'shared word' }]);
    session(db, 'n2', null, [{ content: 'shared word' }]);
    session(db, 'n3', null, [{ content: 'shared word' }]);
    expect(keywordSearch(db, { kind: 'sessions', sessionIds: ['n1', 'n3'] }, 'shared').hits.map((h) => h.sessionId).sort()).toEqual(['n1', 'n3']);
    expect(keywordSearch(db, { kind: 'sessions', sessionIds: [] }, 'shared').hits).toEqual([]);
    expect(keywordSearch(db, { kind: 'project', projectId: '' }, 'shared').hits).toEqual([]);
    expect(keywordSearch(db, { kind: 'nonsense' } as unknown as KeywordScope, 'shared').hits).toEqual([]);
  });
});

describe('moves and the scope token', () => {
  test.each([
    ['the next search drains the queue', 'none'],
    ['the move code calls reindexSessionsScope', 'reindex'],
    ['a read-only connection falls back to the JOIN alone', 'readonly'],
  ])('after a move, P no longer finds it and Q does (%s)', (_name, mode) => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    const { p, q } = setup(db);
    session(db, 'm1', p, [{ content: 'movable kappa' }, { content: 'kappa again' }]);
    session(db, 'stay', p, [{ content: 'kappa stays' }]);
    expect(keywordSearch(db, inProject(p), 'kappa').hits.length).toBe(3);
    // setSessionProject refreshes the scope token itself; a move written by other code (a plain
    // UPDATE) is queued by the trigger, which is what a read-only connection has to cope with.
    if (mode === 'readonly') db.raw.prepare('update sessions set project_id = ? where id = ?').run(q, 'm1');
    else {
      const moved = setSessionProject(db, 'm1', q);
      if (mode === 'reindex') reindexSessionsScope(db.raw, moved.sessionIds);
    }
    const reader = mode === 'readonly' ? openDatabase(join(dir, 'recall.db'), { readonly: true }) : db;
    try {
      const search = (scope: KeywordScope) => keywordSearch(reader, scope, 'kappa').hits.map((h) => h.sessionId);
      expect(search(inProject(p))).toEqual(['stay']);
      expect(search(inProject(q)).sort()).toEqual(['m1', 'm1']);
      // The read-only connection cannot rewrite tokens: the move stays queued for a writer.
      if (mode === 'readonly') expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(1);
      if (mode === 'reindex') expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(0);
    } finally {
      if (reader !== db) reader.close();
    }
  });

  test('a move by any code path (plain UPDATE) is picked up', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    session(db, 'm1', p, [{ content: 'lambda' }]);
    db.raw.prepare('update sessions set project_id = ? where id = ?').run(q, 'm1');
    expect(keywordSearch(db, inProject(p), 'lambda').hits).toEqual([]);
    expect(keywordSearch(db, inProject(q), 'lambda').hits.map((h) => h.sessionId)).toEqual(['m1']);
    // A project search with the default plan rewrote the queued tokens (its kept statistics need them).
    expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(0);
    expect(db.raw.prepare("select count(*) from messages_fts where messages_fts match ?").pluck().get(`scope : "${scopeToken(q)}" AND lambda`)).toBe(1);
    db.raw.prepare('update sessions set project_id = ? where id = ?').run(p, 'm1');
    db.raw.prepare('update sessions set project_id = ? where id = ?').run(q, 'm1');
    expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(1);
    // So does the next index write.
    appendMessages(db, 'm1', [{ role: 'user', content: 'lambda two' }]);
    expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(0);
    expect(db.raw.prepare("select count(*) from messages_fts where messages_fts match ?").pluck().get(`scope : "${scopeToken(q)}" AND lambda`)).toBe(2);
    expect(refreshScopeTokens(db.raw)).toBe(true);
  });

  test('the token pre-filter is used when a project has many matches, and stays correct after moves', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    const many = SCOPE_TOKEN_MIN_MATCHES + 50;
    session(db, 'big-p', p, Array.from({ length: many }, () => ({ content: 'sigma common' })));
    session(db, 'big-q', q, Array.from({ length: 10 }, () => ({ content: 'sigma common' })));
    expect(keywordSearch(db, inProject(q), 'sigma', { limit: 500 }).hits.length).toBe(10);
    setSessionProject(db, 'big-q', p);
    setSessionProject(db, 'big-p', q);
    expect(keywordSearch(db, inProject(p), 'sigma', { limit: 500 }).hits.every((h) => h.sessionId === 'big-q')).toBe(true);
    expect(keywordSearch(db, inProject(q), 'sigma', { limit: 500 }).hits.length).toBe(500);
    expect(db.raw.prepare('select count(*) from keyword_scope_dirty').pluck().get()).toBe(0);
  });

  test('a stale token can only hide rows, never leak them', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    session(db, 'm1', p, [{ content: 'omicron' }]);
    // Simulate a lost queue entry: project changed, token still says p.
    db.raw.prepare('update sessions set project_id = ? where id = ?').run(q, 'm1');
    db.raw.prepare('delete from keyword_scope_dirty').run();
    expect(keywordSearch(db, inProject(p), 'omicron').hits).toEqual([]);
  });
});

describe('index lifecycle', () => {
  test('migration 0007 (the latest to create it) creates messages_fts exactly as fts-index.ts expects', () => {
    const sql = readFileSync(fileURLToPath(new URL('../../schema/drizzle/0007_keyword_index_totals.sql', import.meta.url)), 'utf8');
    const create = /CREATE VIRTUAL TABLE[\s\S]*?\n\);/.exec(sql)![0].replace(/;$/, '');
    expect(create.replace(/\s+/g, ' ')).toBe(FTS_TABLE_SQL.replace(/\s+/g, ' '));
    const db = tempDb();
    const stored = db.raw.prepare("select sql from sqlite_master where name = 'messages_fts'").pluck().get() as string;
    expect(stored.replace(/\s+/g, ' ')).toBe(FTS_TABLE_SQL.replace(/\s+/g, ' '));
  });

  test('a table with another definition (earlier tokenizer) is recreated and rebuilt on first use', () => {
    const dir = tempDir();
    const first = tempDb('recall.db', dir);
    const { p } = setup(first);
    session(first, 's1', p, [{ content: 'we decided on exponential backoff' }]);
    first.raw.exec("DROP TABLE messages_fts; CREATE VIRTUAL TABLE messages_fts USING fts5(body, cjk, scope, content='', contentless_delete=1, tokenize='unicode61')");
    first.close();
    const db = openDatabase(join(dir, 'recall.db'));
    try {
      const hits = keywordSearch(db, inProject(p), 'decide').hits;
      expect(hits.length).toBe(1);
      expect(hits[0]!.snippet).toContain(`${HIGHLIGHT_OPEN}decided${HIGHLIGHT_CLOSE}`);
      expect(db.raw.prepare("select sql from sqlite_master where name = 'messages_fts'").pluck().get()).toContain('porter');
    } finally {
      db.close();
    }
  });

  test('a database upgraded from before the keyword index is indexed on first use', () => {
    const dir = tempDir();
    const path = join(dir, 'legacy.db');
    const legacy = openDatabase(path, { migrateUpTo: '0001_project_ownership' });
    legacy.raw.prepare("insert into projects (id, name, slug) values ('p_old', 'Old', 'old')").run();
    legacy.raw.prepare("insert into sessions (id, project_id) values ('s_old', 'p_old')").run();
    legacy.raw.prepare("insert into messages (session_id, role, content) values ('s_old', 'user', '旧的 legacy 消息')").run();
    legacy.close();
    const db = openDatabase(path);
    try {
      expect(keywordSearch(db, inProject('p_old'), 'legacy').hits.length).toBe(1);
      expect(keywordSearch(db, inProject('p_old'), '消息').hits.length).toBe(1);
      expect(db.raw.prepare('select version from keyword_index_state').pluck().get()).toBe(KEYWORD_INDEX_VERSION);
    } finally {
      db.close();
    }
  });

  test('re-indexing (unindex + index) and rebuildKeywordIndex leave the same index', () => {
    const db = tempDb();
    const { p } = setup(db);
    const [id] = session(db, 's1', p, [{ content: 'theta theta' }]);
    const before = keywordSearch(db, inProject(p), 'theta').hits[0]!.score;
    db.raw.transaction(() => {
      unindexMessages(db.raw, [id!]);
      indexMessages(db.raw, [{ id: id!, content: 'theta theta' }]);
    })();
    expect(keywordSearch(db, inProject(p), 'theta').hits[0]!.score).toBeCloseTo(before, 10);
    expect(rebuildKeywordIndex(db.raw)).toBe(1);
    const after = keywordSearch(db, inProject(p), 'theta').hits;
    expect(after.length).toBe(1);
    expect(after[0]!.score).toBeCloseTo(before, 10);
  });
});

describe('query plan', () => {
  const plan = (db: RecallDatabase, kind: 'project' | 'sessions'): string[] =>
    (
      db.raw.prepare(`EXPLAIN QUERY PLAN ${keywordSearchSql(kind)}`).all({
        projectId: 'p',
        exclude: '[]',
        sessions: '[]',
        minId: 0,
        maxId: 1,
        automated: '[]',
        roles: null,
        match: 'x',
        limit: 20,
      }) as { detail: string }[]
    ).map((r) => r.detail);

  test.each(['project', 'sessions'] as const)('%s scope: FTS first, then PK lookups; the scope is in the same statement as LIMIT', (kind) => {
    const db = tempDb();
    const steps = plan(db, kind);
    expect(steps[0]).toMatch(/^SCAN messages_fts VIRTUAL TABLE INDEX/);
    // The message is found by its id: the rowid itself, or (sessions scope) the (session_id, id) index.
    expect(steps).toContainEqual(expect.stringMatching(/^SEARCH m USING (INTEGER PRIMARY KEY \(rowid=\?\)|INDEX messages_session_idx \(session_id=\? AND id=\?)/));
    expect(steps).toContainEqual(expect.stringMatching(/^SEARCH s USING INDEX sqlite_autoindex_sessions_1 \(id=\?\)/));
    // Nothing scans messages or sessions wholesale.
    expect(steps.filter((s) => /^SCAN (m|s|messages|sessions)\b/.test(s))).toEqual([]);
    const sql = keywordSearchSql(kind);
    expect(sql).toMatch(kind === 'project' ? /s\.project_id = @projectId/ : /s\.id IN \(SELECT value FROM json_each\(@sessions\)\)/);
    expect(sql.indexOf('project_id') < sql.indexOf('LIMIT') || kind === 'sessions').toBe(true);
  });
});

describe('any string is a valid query (property, real search)', () => {
  test('keywordSearch never throws and stays in scope for arbitrary strings, including 10 kB pastes', () => {
    const db = tempDb();
    const { p, q } = setup(db);
    session(db, 'mine', p, [{ content: '修复 busy_timeout 问题 100% done a_b -> 🙂 "quoted" (paren) NOT near' }, { content: 'retry backoff' }]);
    session(db, 'theirs', q, [{ content: '修复 busy_timeout 问题 100% done a_b -> 🙂 "quoted" (paren) NOT near' }]);
    const soup = fc
      .array(fc.constantFrom('AND', 'OR', 'NOT', 'NEAR(', ')', '"', '*', '^', ':', '-', '%', '_', '\\', '🙂', '修复', 'busy_timeout', 'body:', 'scope :', ' '), { maxLength: 30 })
      .map((a) => a.join(''));
    const big = fc.string({ minLength: 10_000, maxLength: 10_240 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), soup, big), (input) => {
        const result = keywordSearch(db, inProject(p), input, { limit: 50 });
        for (const hit of result.hits) expect(hit.sessionId).toBe('mine');
        for (const title of result.titleHits) expect(title.sessionId).toBe('mine');
      }),
      { numRuns: 300 },
    );
  });
});
