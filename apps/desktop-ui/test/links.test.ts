import { describe, expect, it } from 'vitest';
import { formatHash, hashForLink, linkify, parseHash, parseRecallLink, type Route } from '../src/lib/links';

describe('parseRecallLink', () => {
  it.each([
    ['recall://session/s_abc#m42', { sessionId: 's_abc', messageId: 42 }],
    ['recall://session/s_abc#m-42', { sessionId: 's_abc', messageId: 42 }],
    ['recall://session/s_abc#42', { sessionId: 's_abc', messageId: 42 }],
    ['recall://session/s_abc/message/42', { sessionId: 's_abc', messageId: 42 }],
    ['recall://session/s_abc/m/7', { sessionId: 's_abc', messageId: 7 }],
    ['recall://s/s_abc/m/7', { sessionId: 's_abc', messageId: 7 }],
    ['recall://session/s_abc?message_id=9', { sessionId: 's_abc', messageId: 9 }],
    ['recall://session/s_abc', { sessionId: 's_abc' }],
    ['recall://session/demo%20x#m3', { sessionId: 'demo x', messageId: 3 }],
    ['http://127.0.0.1:7821/#/s/s_abc/m/5', { sessionId: 's_abc', messageId: 5 }],
  ])('%s', (link, want) => {
    expect(parseRecallLink(link)).toEqual(want);
  });

  it('rejects other links', () => {
    expect(parseRecallLink('https://example.com/x')).toBeNull();
    expect(parseRecallLink('')).toBeNull();
    expect(parseRecallLink('recall://project/p_1')).toBeNull();
  });

  it('ignores a non-numeric message fragment', () => {
    expect(parseRecallLink('recall://session/s1#top')).toEqual({ sessionId: 's1' });
  });
});

describe('hash routes', () => {
  const routes: Route[] = [
    { view: 'home' },
    { view: 'session', sessionId: 's_1' },
    { view: 'session', sessionId: 's_1', messageId: 12 },
    { view: 'session', sessionId: 'demo/odd id', messageId: 3 },
    { view: 'new', projectId: null },
    { view: 'new', projectId: 'p_x' },
    { view: 'new', projectId: 'p_x', cwd: '/home/dev/src/a b' },
  ];
  it.each(routes)('round-trips %j', (r) => {
    expect(parseHash(formatHash(r))).toEqual(r);
  });

  it('parses the documented forms', () => {
    expect(parseHash('#/s/s_1/m/12')).toEqual({ view: 'session', sessionId: 's_1', messageId: 12 });
    expect(parseHash('')).toEqual({ view: 'home' });
    expect(parseHash('#/whatever')).toEqual({ view: 'home' });
    expect(parseHash('#/s/s_1/m/notanumber')).toEqual({ view: 'session', sessionId: 's_1' });
  });

  it('opens tool links through the hash', () => {
    expect(parseHash('#recall://session/s_9#m4')).toEqual({ view: 'session', sessionId: 's_9', messageId: 4 });
    expect(parseHash(`#/open/${encodeURIComponent('recall://session/s_9#m4')}`)).toEqual({
      view: 'session',
      sessionId: 's_9',
      messageId: 4,
    });
    expect(hashForLink('recall://session/s_9#m4')).toBe('#/s/s_9/m/4');
  });
});

describe('linkify', () => {
  it('splits recall links out of text and drops trailing punctuation', () => {
    const parts = linkify('see recall://session/s1#m2. and recall://s/s2/m/3，好');
    expect(parts).toEqual([
      { kind: 'text', text: 'see ' },
      { kind: 'link', text: 'recall://session/s1#m2', href: '#/s/s1/m/2' },
      { kind: 'text', text: '. and ' },
      { kind: 'link', text: 'recall://s/s2/m/3', href: '#/s/s2/m/3' },
      { kind: 'text', text: '，好' },
    ]);
  });
  it('leaves plain text alone', () => {
    expect(linkify('no links <b>here</b>')).toEqual([{ kind: 'text', text: 'no links <b>here</b>' }]);
  });
});
