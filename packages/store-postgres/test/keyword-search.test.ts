import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentText, insertMessages, tsvectorLiteral, InvalidKeywordSearchError, keywordQuery, searchKeyword, type RecallPostgres } from '../src/index.js';
import { projects, sessions } from '../src/tables.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();

async function seed(db: RecallPostgres): Promise<Record<string, number>> {
  await db.orm.insert(projects).values([
    { id: 'cook', name: 'Cooking', slug: 'cook' },
    { id: 'ops', name: 'Ops', slug: 'ops' },
  ]);
  await db.orm.insert(sessions).values([
    { id: 's-cook', projectId: 'cook' },
    { id: 's-ops', projectId: 'ops' },
    { id: 's-hidden', projectId: 'cook', hidden: true },
  ]);
  const [egg, fish, rewound] = await insertMessages(db, 's-cook', [
    { role: 'user', content: '先把鸡蛋炒好再放番茄，番茄炒蛋就做好了' },
    { role: 'assistant', content: '清蒸鲈鱼要先腌十分钟' },
    { role: 'user', content: '番茄炒蛋 rewound draft', visibility: 'rewound' },
  ]);
  const [retry, eggOps] = await insertMessages(db, 's-ops', [
    { role: 'assistant', content: 'We decided to retry with exponential backoff when busy_timeout expires.' },
    { role: 'user', content: '番茄炒蛋 in the ops channel' },
  ]);
  const [hidden] = await insertMessages(db, 's-hidden', [{ role: 'user', content: '番茄炒蛋 hidden' }]);
  return { egg: egg!, fish: fish!, rewound: rewound!, retry: retry!, eggOps: eggOps!, hidden: hidden! };
}

describe('searchKeyword', () => {
  it('finds a Chinese message by a Chinese query, only in the project asked for', async () => {
    const db = await cluster.open();
    const ids = await seed(db);
    const cook = await searchKeyword(db, { projectId: 'cook', query: '番茄炒蛋' });
    expect(cook.hits.map((h) => h.messageId)).toEqual([ids.egg]);
    expect(cook.hits[0]).toMatchObject({ sessionId: 's-cook' });
    // ICU segments the query into 番茄|炒蛋; adjacent matches are marked as one, as in the SQLite search (the shared snippet rule).
    expect(cook.hits[0]!.snippet).toContain('«番茄炒蛋»');
    const phrase = await searchKeyword(db, { projectId: 'cook', query: '"番茄炒蛋"' });
    expect(phrase.hits.map((h) => h.messageId)).toEqual([ids.egg]);
    expect(phrase.tsquery).toBe("('番茄':A <-> '茄炒':A <-> '炒蛋':A)");
    const ops = await searchKeyword(db, { projectId: 'ops', query: '番茄炒蛋' });
    expect(ops.hits.map((h) => h.messageId)).toEqual([ids.eggOps]);
    // One character is a weight-B (unigram) match; a natural question keeps its useful words.
    expect((await searchKeyword(db, { projectId: 'cook', query: '鱼' })).hits.map((h) => h.messageId)).toEqual([ids.fish]);
    expect((await searchKeyword(db, { projectId: 'cook', query: '上次说的鲈鱼怎么做' })).hits.map((h) => h.messageId)).toEqual([ids.fish]);
  });

  it('finds an English message by stem and by identifier parts', async () => {
    const db = await cluster.open();
    const ids = await seed(db);
    const r = await searchKeyword(db, { projectId: 'ops', query: 'what did we decide about retries?' });
    expect(r.hits.map((h) => h.messageId)).toEqual([ids.retry]);
    expect(r.hits[0]!.snippet).toContain('«decided»');
    expect((await searchKeyword(db, { projectId: 'ops', query: 'busy_timeout' })).hits.map((h) => h.messageId)).toEqual([ids.retry]);
    expect((await searchKeyword(db, { projectId: 'ops', query: '"timeout busy"' })).hits).toEqual([]);
    expect((await searchKeyword(db, { projectId: 'cook', query: 'backoff' })).hits).toEqual([]);
  });

  it('ranks the message matching more terms first', async () => {
    const db = await cluster.open();
    await db.orm.insert(projects).values({ id: 'p', name: 'P', slug: 'p' });
    await db.orm.insert(sessions).values({ id: 's', projectId: 'p' });
    const [one, both] = await insertMessages(db, 's', [
      { role: 'user', content: 'the deploy finished' },
      { role: 'user', content: 'the deploy rollback finished after the deploy' },
    ]);
    const r = await searchKeyword(db, { projectId: 'p', query: 'deploy rollback' });
    expect(r.hits.map((h) => h.messageId)).toEqual([both, one]);
    expect(r.hits[0]!.rank).toBeGreaterThan(r.hits[1]!.rank);
  });

  it('never returns rewound messages or hidden sessions; limit applies inside the project', async () => {
    const db = await cluster.open();
    await seed(db);
    const r = await searchKeyword(db, { projectId: 'cook', query: 'rewound hidden 番茄' });
    expect(r.hits.map((h) => h.sessionId)).toEqual(['s-cook']);
    const extra = Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `番茄 number ${i}` }));
    await insertMessages(db, 's-ops', extra);
    const limited = await searchKeyword(db, { projectId: 'cook', query: '番茄', limit: 1 });
    expect(limited.hits).toHaveLength(1);
    expect(limited.hits[0]!.sessionId).toBe('s-cook');
  });

  it('treats operators and quotes in the query as text, and rejects bad arguments', async () => {
    const db = await cluster.open();
    await seed(db);
    for (const q of ["'", "a & | ! <-> :* (", '\\', '🙂', '', '))) OR ((']) {
      await expect(searchKeyword(db, { projectId: 'cook', query: q })).resolves.toBeDefined();
    }
    expect((await searchKeyword(db, { projectId: 'cook', query: '🙂' })).tsquery).toBeNull();
    await expect(searchKeyword(db, { projectId: '', query: 'x' })).rejects.toBeInstanceOf(InvalidKeywordSearchError);
    await expect(searchKeyword(db, { projectId: 'cook', query: 'x', limit: 0 })).rejects.toMatchObject({ code: 'invalid_keyword_search' });
  });

  it('indexes a message of PG_MAX_INDEXED_CHARS random CJK characters (tsvector size limit)', async () => {
    const db = await cluster.open();
    await db.orm.insert(projects).values({ id: 'p', name: 'P', slug: 'p' });
    await db.orm.insert(sessions).values({ id: 's', projectId: 'p' });
    let seed = 7;
    const chars = Array.from({ length: 60_000 }, () => String.fromCodePoint(0x4e00 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 20_000)));
    const content = chars.join('');
    const [id] = await insertMessages(db, 's', [{ role: 'user', content }]);
    const query = chars.slice(1000, 1004).join('');
    expect((await searchKeyword(db, { projectId: 'p', query: `"${query}"` })).hits.map((h) => h.messageId)).toEqual([id]);
  });
});

describe('the tsvector keeps the tokenizer lexemes', () => {
  const pieces = fc.constantFrom('Hello', 'busy_timeout', 'config.yaml', 'v1.2.3', '123abc', 'e2e', '1e5', 'Café', 'naïve', 'ÉCOLE', 'ｆｕｌｌ', 'straße', 'İstanbul', 'señor', 'Ωmega', 'кошка', 'مرحبا', 'नमस्ते', '番茄炒蛋', '々', 'カタカナー', '한국어', '🙂', '-', "'", '\\', ' ', '\n', '_', '%', '0x1F', '3.14', 'x²', '\u0301');

  it('the stored tsvector holds exactly the lexemes of documentText(), whatever the text', async () => {
    const db = await cluster.open();
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { maxLength: 12 }), async (parts) => {
        const doc = documentText(parts.join(''));
        const r = await db.pool.query('select tsvector_to_array($1::tsvector) as lexemes', [tsvectorLiteral(doc)]);
        const expected = [...new Set(`${doc.body} ${doc.cjk}`.split(' ').filter((t) => t !== ''))].sort();
        expect([...r.rows[0].lexemes].sort()).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("why not to_tsvector('simple', …): its parser splits some tokenizer lexemes again", async () => {
    const db = await cluster.open();
    const r = await db.pool.query("select tsvector_to_array(to_tsvector('simple', '1e5hello')) as lexemes");
    expect(r.rows[0].lexemes).toEqual(['1e5', 'hello']);
    expect(documentText('1e5hello').body).toBe('1e5hello');
  });

  it('any word of a message finds that message (random text, end to end)', async () => {
    const db = await cluster.open();
    await db.orm.insert(projects).values({ id: 'p', name: 'P', slug: 'p' });
    await db.orm.insert(sessions).values({ id: 's', projectId: 'p' });
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { minLength: 1, maxLength: 8 }), fc.nat(), async (parts, pick) => {
        const word = parts[pick % parts.length]!;
        const [id] = await insertMessages(db, 's', [{ role: 'user', content: parts.join(' ') }]);
        const query = `"${word}"`;
        if (keywordQuery(query).tsquery === null) return;
        const r = await searchKeyword(db, { projectId: 'p', query, limit: 500 });
        expect(r.hits.map((h) => h.messageId)).toContain(id);
      }),
      { numRuns: 100 },
    );
  });
});
