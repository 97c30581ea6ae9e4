/**
 * The semantic script gate (src/scripts.ts, applied in discover.ts): a source whose model reads
 * Latin only (the built-in USE-lite declares `scripts: ['latin']`) keeps a semantic hit of a query
 * written only in other scripts (番茄炒蛋) only when the hit's chunk is mostly written in the query's
 * script. Table-driven on both storage adapters (the gate reads the chunk text through
 * MessageStore.findMany, which each adapter implements), with a scripted source that returns every
 * message of the caller's project above the similarity floor — the noise a real English model gives
 * a Chinese query. Plus the word-share function itself.
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import type { WritingScript } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { unreadScriptNote, NO_SEMANTIC_MATCH_NOTE } from '../src/discover.js';
import { createSessionSearchTool, type SemanticHit, type SemanticSource } from '../src/index.js';
import { scriptShare, scriptsOf, unreadQueryScripts } from '../src/scripts.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-script-gate-'));
let cluster: ThrowawayPostgres | undefined;
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ADAPTERS: Array<[name: string, open: () => Promise<Storage>]> = [
  ['sqlite', () => openSqliteStorage({ kind: 'sqlite', path: join(dir, `gate-${Date.now()}.db`) })],
  ['postgres', async () => openPostgresStorage({ kind: 'postgres', url: (cluster ??= await startThrowawayPostgres()).createDatabase('gate') })],
];

const T0 = Date.UTC(2026, 7, 1);
/** The demo's Rust project: an English question with one Chinese clause (6 Han words of 30). */
const BILINGUAL = 'Profiling shows 70% of the time in my naive byte loop that looks for the first byte of the pattern. Should I use memchr? 另外 mmap 值得用吗？';

/** An English project (one message with a Chinese clause) and a Chinese one; a fresh caller session in each. */
async function seed(s: Storage) {
  await s.projects.create({ id: 'p_en', name: 'Rust CLI' });
  await s.projects.create({ id: 'p_zh', name: '菜谱' });
  let t = T0;
  const say = (content: string) => ({ role: 'user' as const, content, createdAt: (t += 60_000) });
  await s.sessions.create({ id: 's_en', projectId: 'p_en', messages: [say('clap derive with a max-depth flag'), say('the borrow checker rejects the line iterator'), say(BILINGUAL)] });
  await s.sessions.create({ id: 's_zh', projectId: 'p_zh', messages: [say('西红柿炒鸡蛋怎么做'), say('用 SQLite FTS5 做菜名搜索，英文没问题')] });
  await s.sessions.create({ id: 'c_en', projectId: 'p_en' });
  await s.sessions.create({ id: 'c_zh', projectId: 'p_zh' });
  const ids = async (session: string) => (await s.messages.list(session)).map((m) => m.id);
  return { en: await ids('s_en'), zh: await ids('s_zh') };
}

/** Every message of the caller's project as a semantic hit (score 0.9, 0.89, …; whole-message chunks unless `ranges` says). */
function everything(s: Storage, sessions: Record<string, number[]>, scripts: readonly WritingScript[] | undefined, ranges: Map<number, [number, number]> = new Map()): SemanticSource {
  return {
    ...(scripts ? { scripts } : {}),
    fusion: { similarityFloor: 0.3 },
    status: () => ({ status: 'ready', coverage: { indexed: 5, total: 5 } }),
    search: async (_query, scope) => {
      const project = scope.kind === 'project' ? scope.projectId : null;
      const ids = project === 'p_en' ? sessions['en']! : project === 'p_zh' ? sessions['zh']! : [];
      const sessionId = project === 'p_en' ? 's_en' : 's_zh';
      return ids.map((messageId, i): SemanticHit => {
        const range = ranges.get(messageId);
        return { messageId, sessionId, score: 0.9 - i / 100, ...(range ? { start: range[0], end: range[1] } : {}) };
      });
    },
  };
}

describe('the script words of a text', () => {
  test.each([
    ['番茄炒蛋', ['han']],
    ['番茄 rust', ['latin', 'han']],
    ['ラーメン食べた', ['hiragana', 'katakana', 'han']],
    ['Москва 2024', ['cyrillic']],
    ['1234 ?!', []],
    ['ሰላም', ['other']],
  ])('%s is written in %j', (text, scripts) => {
    expect(scriptsOf(text)).toEqual(scripts);
  });

  test.each([
    ['番茄炒蛋', ['latin'], ['han']],
    ['番茄炒蛋', undefined, null],
    ['番茄 rust', ['latin'], null],
    ['tomato eggs', ['latin'], null],
    ['2024', ['latin'], null],
    ['Москва', ['latin'], ['cyrillic']],
    ['Москва', ['latin', 'cyrillic'], null],
  ] as const)('%s for a model reading %j is gated on %j', (query, reads, gate) => {
    expect(unreadQueryScripts(query, reads)).toEqual(gate);
  });

  test.each([
    [BILINGUAL, ['han'], 6 / 30],
    ['Should I use memchr? 另外 mmap 值得用吗？', ['han'], 6 / 11],
    ['西红柿炒鸡蛋怎么做', ['han'], 1],
    ['用 SQLite FTS5 做菜名搜索', ['han'], 6 / 8],
    ['clap derive', ['han'], 0],
    ['ラーメン食べた', ['katakana'], 1],
    ['', ['han'], 0],
  ] as const)('%s: share of %j words', (text, scripts, share) => {
    expect(scriptShare(text, scripts)).toBeCloseTo(share, 6);
  });
});

describe.each(ADAPTERS)('the script gate on %s', (_name, open) => {
  test('table: which semantic hits a Latin-only model keeps', { timeout: 60_000 }, async () => {
    const s = await open();
    try {
      const ids = await seed(s);
      const [clap, borrow, bilingual] = ids.en as [number, number, number];
      const [tomato, fts] = ids.zh as [number, number];
      // The Chinese clause of the bilingual message as its own chunk.
      const clause = new Map<number, [number, number]>([[bilingual, [BILINGUAL.indexOf('另外'), BILINGUAL.length]]]);
      const cases: Array<{ name: string; query: string; caller: string; scripts?: readonly WritingScript[]; ranges?: typeof clause; mode: 'semantic' | 'hybrid'; anchors: number[]; note?: string }> = [
        { name: 'Chinese query, English project: no semantic hit (the Chinese clause is a minor part of its message)', query: '番茄炒蛋', caller: 'c_en', scripts: ['latin'], mode: 'semantic', anchors: [], note: unreadScriptNote(['latin'], ['han'], 'semantic', 0) },
        { name: 'the same in hybrid mode: nothing, and the note says why', query: '番茄炒蛋', caller: 'c_en', scripts: ['latin'], mode: 'hybrid', anchors: [], note: unreadScriptNote(['latin'], ['han'], 'hybrid', 0) },
        { name: 'Chinese query, English project, the Chinese clause as its own chunk: kept', query: '番茄炒蛋', caller: 'c_en', scripts: ['latin'], ranges: clause, mode: 'semantic', anchors: [bilingual] },
        { name: 'Chinese query, Chinese project: hits kept', query: '番茄炒蛋', caller: 'c_zh', scripts: ['latin'], mode: 'semantic', anchors: [tomato, fts] },
        { name: 'English query: unchanged', query: 'iterator', caller: 'c_en', scripts: ['latin'], mode: 'semantic', anchors: [clap, borrow, bilingual] },
        { name: 'mixed query (a Latin word the model reads): unchanged', query: 'mmap 值得用吗', caller: 'c_en', scripts: ['latin'], mode: 'semantic', anchors: [clap, borrow, bilingual] },
        { name: 'a model reading every script: unchanged', query: '番茄炒蛋', caller: 'c_en', mode: 'semantic', anchors: [clap, borrow, bilingual] },
      ];
      for (const c of cases) {
        const source = everything(s, ids, c.scripts, c.ranges);
        const tool = createSessionSearchTool({ storage: s, semantic: source });
        const r = await tool.execute({ query: c.query, search_mode: c.mode, window: 0, limit: 10 }, { currentSessionId: c.caller });
        expect(r.error, c.name).toBeUndefined();
        // One result per conversation: the anchor and the other ids together are the kept hits.
        const kept = r.results.flatMap((x) => [x.message_id, ...(x.other_message_ids ?? [])]);
        expect(kept.sort((a, b) => a - b), c.name).toEqual([...c.anchors].sort((a, b) => a - b));
        expect(r.used_mode, c.name).toBe(c.mode);
        expect(r.semantic_status, c.name).toBe('ready');
        if (c.note) expect(r.notes, c.name).toContain(c.note);
        else expect(r.notes.filter((n) => n.includes('reads only')), c.name).toEqual([]);
        if (c.anchors.length === 0) expect(r.notes, c.name).not.toContain(NO_SEMANTIC_MATCH_NOTE);
      }
    } finally {
      await s.close();
    }
  });
});
