import { describe, expect, it } from 'vitest';
import { groupHits, highlightTerms, plainSnippet, queryTerms, splitSnippet } from '../src/lib/snippet';
import type { SearchHit } from '@recall/rpc-contract';

describe('splitSnippet', () => {
  it('splits <mark> markers and decodes entities without producing HTML', () => {
    expect(splitSnippet('a &lt;b&gt; <mark>fix</mark> the <mark>E0502</mark>!')).toEqual([
      { text: 'a <b> ', match: false },
      { text: 'fix', match: true },
      { text: ' the ', match: false },
      { text: 'E0502', match: true },
      { text: '!', match: false },
    ]);
  });

  it('supports >>> <<< and control-character markers', () => {
    expect(splitSnippet('搜 >>>番茄<<< 炒蛋')).toEqual([
      { text: '搜 ', match: false },
      { text: '番茄', match: true },
      { text: ' 炒蛋', match: false },
    ]);
    expect(splitSnippet('x\u0002y\u0003z')).toEqual([
      { text: 'x', match: false },
      { text: 'y', match: true },
      { text: 'z', match: false },
    ]);
  });

  it('keeps a script tag as text', () => {
    const segs = splitSnippet('<script>alert(1)</script> <mark>x</mark>');
    expect(segs[0]).toEqual({ text: '<script>alert(1)</script> ', match: false });
  });

  it('falls back to the query terms when there are no markers', () => {
    expect(splitSnippet('Borrow error E0502 in borrow', 'borrow e0502')).toEqual([
      { text: 'Borrow', match: true },
      { text: ' error ', match: false },
      { text: 'E0502', match: true },
      { text: ' in ', match: false },
      { text: 'borrow', match: true },
    ]);
  });

  it.each([
    ['Profiling shows 70%', 'how did we', [{ text: 'Profiling shows 70%', match: false }]],
    ['borrows and reborrow', 'borrow', [{ text: 'borrow', match: true }, { text: 's and reborrow', match: false }]],
    ['see 2x_how how', 'how', [{ text: 'see 2x_how ', match: false }, { text: 'how', match: true }]],
    ['用how写', 'how', [{ text: '用', match: false }, { text: 'how', match: true }, { text: '写', match: false }]],
    ['a.cfg and b.cfg', '.cfg', [{ text: 'a', match: false }, { text: '.cfg', match: true }, { text: ' and b', match: false }, { text: '.cfg', match: true }]],
  ])('a Latin term is marked only where a word starts: %s / %s', (text, query, expected) => {
    expect(highlightTerms(text, query)).toEqual(expected);
  });

  it('highlights CJK terms and ignores FTS syntax', () => {
    expect(queryTerms('"番茄" OR (炒蛋*)')).toEqual(['番茄', '炒蛋']);
    expect(highlightTerms('番茄炒蛋', '炒蛋')).toEqual([
      { text: '番茄', match: false },
      { text: '炒蛋', match: true },
    ]);
  });

  it('an unmatched open marker is left as text', () => {
    expect(plainSnippet('a <mark>b')).toBe('a <mark>b');
    expect(splitSnippet('', 'q')).toEqual([]);
  });
});

describe('groupHits', () => {
  it('groups by conversation in best-first order', () => {
    const h = (sid: string, mid: number): SearchHit => ({
      session_id: sid,
      message_id: mid,
      link: `recall://session/${sid}#m${mid}`,
      role: 'user',
      snippet: 'x',
      match_source: 'keyword',
      title: `t-${sid}`,
      date: '2024-03-01T10:00:00.000Z',
      session_date: '2024-03-01T10:00:00.000Z',
      conversation_id: sid,
      segment: 1,
      segment_count: 1,
      window: [],
    });
    const groups = groupHits([h('b', 1), h('a', 2), h('b', 3)]);
    expect(groups.map((g) => g.sessionId)).toEqual(['b', 'a']);
    expect(groups[0]!.hits.map((x) => x.message_id)).toEqual([1, 3]);
    expect(groups[0]!.title).toBe('t-b');
  });
});
