/**
 * `<private>…</private>` spans are never findable: their words are not in the keyword index, and a
 * literal or substring scan that matches only inside one is no hit. The stored message keeps them.
 */
import { describe, expect, test } from 'vitest';
import { keywordSearch, type KeywordScope } from '../src/keyword-search.js';
import { appendMessages, editMessage, getMessage } from '../src/messages.js';
import { createProject } from '../src/projects.js';
import { createSession } from '../src/sessions.js';
import { indexColumns } from '../src/search-text.js';
import { tempDb } from './support/temp-db.js';

const scope: KeywordScope = { kind: 'project', projectId: 'p_one' };

function setup(contents: string[]) {
  const db = tempDb();
  createProject(db, { id: 'p_one', name: 'One' });
  createSession(db, { id: 's_one', projectId: 'p_one' });
  const ids = appendMessages(db, 's_one', contents.map((content, i) => ({ role: 'user' as const, content, createdAt: 1_000 + i }))).messages.map((m) => m.id);
  return { db, ids };
}

const hits = (db: ReturnType<typeof setup>['db'], q: string): number[] => keywordSearch(db, scope, q, { substringFallback: true }).hits.map((h) => h.messageId);

describe('<private> spans are not searchable', () => {
  test('index columns blank them', () => {
    expect(indexColumns('open <private>zebracorn 斑马</private> close').body).not.toMatch(/zebracorn|斑马/);
    expect(indexColumns('open <private>斑马</private> 斑马线').cjk).toBe('斑 马 线');
  });

  test.each([
    ['an indexed word', 'zebracorn'],
    ['a CJK word', '独角兽'],
    ['a substring of an identifier', 'ebracor'],
    ['a literal (no searchable words)', '%%%'],
  ])('%s inside a private span is no hit; outside one it is', (_name, q) => {
    const { db, ids } = setup([`public text <private>secret ${q === '%%%' ? '%%%' : q} 独角兽 zebracorn_x</private> end`, 'unrelated words only']);
    expect(hits(db, q)).toEqual([]);
    expect(getMessage(db, ids[0]!).content).toContain('<private>');
    editMessage(db, ids[1]!, `now public: ${q} zebracorn_x 独角兽`);
    expect(hits(db, q)).toEqual([ids[1]]);
  });

  test('an unclosed tag hides the rest of the message', () => {
    const { db } = setup(['before <private>after zebracorn']);
    expect(hits(db, 'zebracorn')).toEqual([]);
    expect(hits(db, 'before')).toHaveLength(1);
  });
});
