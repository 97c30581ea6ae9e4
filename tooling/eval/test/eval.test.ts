/**
 * The retrieval eval (src/): LoCoMo evidence-id normalisation and loading (malformed ids,
 * unknown ids, questions without evidence, speaker prefix, dev/test split), the MemoryBank loader
 * through the repository's own converter script, the metric functions against hand-computed
 * tables, the SVG writer, and the eval end to end on tiny datasets of our own — through the real
 * importer and the real session_search tool (the command itself: main.test.ts).
 * Tests that read ../shared/data run where it exists (as on CI) and are skipped, saying so, where
 * it does not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, REPO_ROOT } from '../src/eval.js';
import { loadLocomo, normaliseEvidenceId, parseLocomoDate, type LocomoConversation } from '../src/locomo.js';
import { loadMemoryBank, type DevQuery, type MemoryBank, type MemoryBankConverter } from '../src/memorybank.js';
import { aggregate, allFoundAtK, conversationRecallAtK, percentile, recallAtK, reciprocalRank, type QuestionOutcome, type RankedResult } from '../src/metrics.js';
import { foreignRows, groupRows, replaceGenerated } from '../src/report.js';
import { runPerProject, splitByProject } from '../src/per-project.js';
import { runDataset } from '../src/runner.js';
import { semanticConfigFor } from '../src/semantic.js';
import { escapeXml, recallChartSvg, tint } from '../src/svg.js';
import { keywordTools } from '../src/tools.js';
import { tinyLocomo } from './support/tiny-data.js';

const dirs: string[] = [];
const dbs: RecallDatabase[] = [];
function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-eval-test-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  dbs.push(db);
  return db;
}
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('LoCoMo evidence ids', () => {
  it.each([
    ['D1:3', ['D1:3'], []],
    ['D8:6; D9:17', ['D8:6', 'D9:17'], []],
    ['D:11:26', ['D11:26'], []],
    ['D30:05', ['D30:5'], []],
    ['D9:1 D4:4 D4:6', ['D9:1', 'D4:4', 'D4:6'], []],
    ['D1:3,D1:3', ['D1:3'], []],
    ['D', [], ['D']],
    ['x D2:1', ['D2:1'], ['x']],
  ])('normalises %j', (raw, ids, malformed) => {
    expect(normaliseEvidenceId(raw)).toEqual({ ids, malformed });
  });

  it.each([
    ['1:56 pm on 8 May, 2023', Date.UTC(2023, 4, 8, 13, 56)],
    ['12:05 am on 1 January, 2024', Date.UTC(2024, 0, 1, 0, 5)],
    ['10:37 am on 27 June, 2023', Date.UTC(2023, 5, 27, 10, 37)],
    ['yesterday', null],
  ])('parses the session date %j', (text, ms) => {
    expect(parseLocomoDate(text)).toBe(ms);
  });
});

describe('loadLocomo', () => {
  it('maps conversations to projects, sessions to sessions and turns to messages with normalised external ids', () => {
    const ds = loadLocomo(tinyLocomo(6));
    expect(ds.records.filter((r) => r.kind === 'project')).toHaveLength(6);
    expect(ds.records.filter((r) => r.kind === 'session')).toHaveLength(12);
    const msgs = ds.records.filter((r) => r.kind === 'message');
    expect(msgs).toHaveLength(24);
    expect(msgs[0]).toMatchObject({ session_id: 'locomo0-s1', external_id: 'D1:1', role: 'user', content: 'Alice: I adopted a corgi named Biscuit last week' });
    expect(msgs[1]).toMatchObject({ role: 'assistant', content: 'Bob: Lovely! I started pottery classes downtown [shares a photo: a photo of a clay bowl]' });
    expect(ds.records.find((r) => r.id === 'locomo0-s1')).toMatchObject({ started_at: '2023-05-08T13:56:00.000Z' });
    // LoCoMo has no session titles; an invented one naming the speakers made every question that
    // names a person a title hit for every session (title hits rank first), so none is stored.
    expect(ds.records.filter((r) => r.kind === 'session').every((r) => r.title === null)).toBe(true);
  });

  it('normalises malformed evidence, drops ids naming no turn, and keeps questions without evidence unscored', () => {
    const ds = loadLocomo(tinyLocomo(1));
    const ev = ds.questions.map((q) => q.evidence.map((e) => e.externalId));
    expect(ev).toEqual([['D1:1'], ['D2:2'], ['D1:1', 'D2:1'], ['D1:2'], []]);
    expect(ds.questions[1]!.evidence[0]!.sessionId).toBe('locomo0-s2');
    expect(ds.notes).toEqual([
      '1 malformed evidence piece(s) dropped (conv 0 q3: "D")',
      '1 evidence id(s) naming no turn dropped (conv 0 q3: D9:9)',
      '1 question(s) without evidence (not scored)',
    ]);
    expect(ds.questions.map((q) => q.category)).toEqual(['single-hop', 'multi-hop', 'multi-hop', 'temporal', 'adversarial']);
  });

  it('splits dev (conversations 0-4) from test (5-9) and can store turns without the speaker', () => {
    const ds = loadLocomo(tinyLocomo(7), { speakerPrefix: false, conversations: [0, 4, 5, 6] });
    expect([...new Set(ds.questions.map((q) => `${q.projectId}:${q.split}`))]).toEqual(['p_locomo0:dev', 'p_locomo4:dev', 'p_locomo5:test', 'p_locomo6:test']);
    expect(ds.records.find((r) => r.kind === 'message')).toMatchObject({ content: 'I adopted a corgi named Biscuit last week' });
  });
});

async function repoConverter(): Promise<MemoryBankConverter> {
  const mod = (await import(pathToFileURL(join(REPO_ROOT, 'tooling', 'scripts', 'memorybank-to-jsonl.mjs')).href)) as { convertMemoryBank: MemoryBankConverter };
  return mod.convertMemoryBank;
}

const TINY_BANK: MemoryBank = {
  甲: { name: '甲', history: { '2023-04-27': [{ query: '今天我做了清蒸鲈鱼', response: '听起来很好吃' }, { query: '我还去了绿禾公园', response: '公园很美' }] } },
  乙: { name: '乙', history: { '2023-04-28': [{ query: '我去看了周杰伦的演唱会', response: '周杰伦很有才华' }] } },
};
const TINY_QUERIES: DevQuery[] = [
  { id: 't1', kind: 'exact', user: '甲', query: '清蒸鲈鱼', targets: ['2023-04-27#0'] },
  { id: 't2', kind: 'paraphrase', user: '甲', query: '我在哪个公园散步', targets: ['2023-04-27#1'] },
  { id: 't3', kind: 'foreign', user: '甲', query: '周杰伦的演唱会', targets: [], answer: { user: '乙', targets: ['2023-04-28#0'] } },
];

describe('loadMemoryBank (through tooling/scripts/memorybank-to-jsonl.mjs)', () => {
  it('resolves targets to both messages of the pair and foreign answers to the other project', async () => {
    const ds = loadMemoryBank(TINY_BANK, TINY_QUERIES, await repoConverter());
    expect(ds.questions[0]!.evidence.map((e) => e.externalId)).toEqual(['2023-04-27#0:q', '2023-04-27#0:r']);
    expect(new Set(ds.questions[0]!.evidence.map((e) => e.unit)).size).toBe(1);
    expect(ds.questions[2]).toMatchObject({ category: 'foreign', evidence: [] });
    expect(ds.questions[2]!.foreignProjectId).not.toBe(ds.questions[2]!.projectId);
  });

  it.each([
    [{ id: 'b1', user: '丙', query: 'x', targets: ['2023-04-27#0'] }, /not in the data/],
    [{ id: 'b2', user: '甲', query: 'x', targets: ['2023-04-27#9'] }, /names no message/],
    [{ id: 'b3', user: '甲', query: 'x', targets: ['27.4.2023#0'] }, /not DATE#turn/],
  ])('rejects a wrong label %#', async (q, message) => {
    const convert = await repoConverter();
    expect(() => loadMemoryBank(TINY_BANK, [q], convert)).toThrow(message);
  });
});

const R = (anchor: string[], other: string[] = []): RankedResult => ({ anchorUnits: anchor, otherUnits: other });

describe('metrics (hand-computed)', () => {
  // units A,B; result 1 anchors nothing but holds B in other ids; result 2 anchors A; result 3 nothing.
  const results = [R([], ['B']), R(['A']), R([])];
  it.each([
    [1, false, 0.5],
    [1, true, 0],
    [2, false, 1],
    [2, true, 0.5],
    [10, true, 0.5],
  ])('recall@%i (anchors only: %s) = %f', (k, anchorOnly, expected) => {
    expect(recallAtK(['A', 'B'], results, k, anchorOnly)).toBe(expected);
  });
  it.each([
    [['A', 'B'], false, 1],
    [['A', 'B'], true, 0.5],
    [['C'], false, 0],
    [['A'], false, 0.5],
  ])('reciprocal rank of %j (anchors only: %s) = %f', (units, anchorOnly, expected) => {
    expect(reciprocalRank(units, results, anchorOnly)).toBe(expected);
  });
  // conversation level: result 1's conversation also holds C (neither anchor nor other id), result 3's holds D.
  const conv = [{ ...R([], ['B']), conversationUnits: ['B', 'C'] }, R(['A']), { ...R([]), conversationUnits: ['D'] }];
  it.each([
    [['C'], 1, 1],
    [['A', 'C'], 1, 0.5],
    [['A', 'C'], 2, 1],
    [['D'], 2, 0],
    [['D'], 3, 1],
    [['E'], 10, 0],
  ])('conversation recall of %j @%i = %f (anchor recall never exceeds it)', (units, k, expected) => {
    expect(conversationRecallAtK(units, conv, k)).toBe(expected);
    expect(recallAtK(units, conv, k, true)).toBeLessThanOrEqual(expected);
  });
  it('all found', () => {
    expect(allFoundAtK(['A', 'B'], results, 2)).toBe(true);
    expect(allFoundAtK(['A', 'B'], results, 1)).toBe(false);
    expect(allFoundAtK([], results, 10)).toBe(false);
    expect(Number.isNaN(recallAtK([], results, 10))).toBe(true);
  });
  it.each([
    [[5, 1, 3, 2, 4], 50, 3],
    [[5, 1, 3, 2, 4], 95, 5],
    [[10], 50, 10],
    [Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
  ])('percentile(%j, %i) = %i', (xs, p, expected) => {
    expect(percentile(xs, p)).toBe(expected);
  });
  it('aggregates scored questions only and sums leaks', () => {
    const o = (units: string[], res: RankedResult[], latencyMs: number, leaks = 0): QuestionOutcome => ({ questionId: 'q', category: 'c', split: 'dev', units, results: res, latencyMs, leaks, returned: res.length, foreignHits: 0 });
    const agg = aggregate([o(['A'], [R(['A'])], 1), o(['A', 'B'], [R([]), R(['B'])], 3, 2), o([], [], 2)]);
    expect(agg).toMatchObject({ asked: 3, scored: 2, mrr: 0.75, mrrAnchor: 0.75, allFound10: 0.5, p50Ms: 2, p95Ms: 3, leaks: 2, errors: 0 });
    expect(agg.recall[10]).toBe(0.75);
    expect(agg.recall[1]).toBe(0.5);
  });
});

describe('semantic provider selection', () => {
  it.each([
    [{}, { provider: 'use-lite', dims: 512, endpoint: 'local:use-lite' }],
    [{ batchSize: 8 }, { provider: 'use-lite', batchSize: 8 }],
    [{ endpoint: 'http://127.0.0.1:11434/v1/', model: 'bge-m3', dims: 1024 }, { provider: 'openai-compatible', model: 'bge-m3', dims: 1024, endpoint: 'http://127.0.0.1:11434/v1' }],
  ])('%j → a real provider config', (spec, expected) => {
    expect(semanticConfigFor(spec)).toMatchObject({ enabled: true, ...expected });
  });
});

describe('SVG chart writer', () => {
  it.each([
    ['#000000', 0.5, '#808080'],
    ['#1f6feb', 0, '#1f6feb'],
    ['#1f6feb', 1, '#ffffff'],
  ])('tint(%s, %f) = %s', (c, t, expected) => expect(tint(c, t)).toBe(expected));

  it('draws three shades per bar, n/a for missing values, and escapes text', () => {
    const svg = recallChartSvg({
      title: 'R&D <chart>',
      groups: ['a&b', 'c'],
      series: [{ name: 'keyword', color: '#1f6feb' }, { name: 'semantic', color: '#d4380d' }],
      values: [
        [{ r1: 0.1, r5: 0.5, r10: 1 }, { r1: NaN, r5: NaN, r10: NaN }],
        [{ r1: 0, r5: 0, r10: 0.25 }, { r1: 0.5, r5: 0.5, r10: 0.5 }],
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('R&amp;D &lt;chart&gt;');
    expect(svg).toContain('>a&amp;b<');
    expect(svg.match(/<title>/g)).toHaveLength(3);
    expect(svg.match(/>n\/a</g)).toHaveLength(1);
    // 3 bars × 3 shades + background + legend swatches (2)
    expect(svg.match(/<rect /g)).toHaveLength(9 + 1 + 2);
    expect(svg).not.toMatch(/NaN|undefined/);
    // The full-height bar (recall@10 = 1) reaches the top of the plot; a 0.25 bar a quarter of it.
    expect(svg).toContain('height="200"');
    expect(svg).toContain('height="50"');
    expect(escapeXml(`"'`)).toBe('&quot;&#39;');
  });

  it('rejects a value table that does not match the groups', () => {
    expect(() => recallChartSvg({ title: 't', groups: ['a'], series: [], values: [] })).toThrow(/one row/);
  });
});

describe('generated docs section', () => {
  it.each([
    ['# B\n\nhand\n', '# B\n\nhand\n\n<!-- b -->\nNEW\n<!-- e -->\n'],
    ['# B\n<!-- b -->\nOLD\n<!-- e -->\ntail\n', '# B\n<!-- b -->\nNEW\n<!-- e -->\ntail\n'],
  ])('replaces only the marked block %#', (doc, expected) => {
    expect(replaceGenerated(doc, 'NEW', '<!-- b -->', '<!-- e -->')).toBe(expected);
  });
});

describe('eval end to end (own tiny data, real importer + session_search)', () => {
  it('LoCoMo-shaped: finds the evidence, reports splits and categories, and nothing leaks across the identical projects', async () => {
    const db = tempDb();
    const ds = loadLocomo(tinyLocomo(6));
    const tool = (await keywordTools().create(db, () => {})).tool;
    const run = await runDataset(ds, { db, profile: 'default', tool, modes: ['keyword'], limit: 10 });
    const outcomes = run.outcomes.get('keyword')!;
    expect(run.messages).toBe(24);
    expect(outcomes).toHaveLength(30);
    expect(outcomes.every((o) => o.error === undefined)).toBe(true);
    expect(outcomes.reduce((s, o) => s + o.leaks, 0)).toBe(0);
    // Every result of every question belongs to the asking project: at most its 2 sessions.
    expect(Math.max(...outcomes.map((o) => o.returned))).toBeLessThanOrEqual(2);
    const corgi = outcomes.filter((o) => o.questionId.endsWith('-q0'));
    expect(corgi.every((o) => recallAtK(o.units, o.results, 1, true) === 1)).toBe(true);
    const rows = groupRows(run);
    expect(rows.map((r) => `${r.split}/${r.group}`)).toEqual(['dev/multi-hop', 'dev/temporal', 'dev/single-hop', 'dev/adversarial', 'dev/all 1–4', 'test/multi-hop', 'test/temporal', 'test/single-hop', 'test/adversarial', 'test/all 1–4']);
    expect(rows.find((r) => r.group === 'all 1–4' && r.split === 'test')!.agg).toMatchObject({ asked: 4, scored: 4, leaks: 0 });
  });

  it('MemoryBank-shaped: a question asked from the wrong project gets nothing from the project that has the answer', async () => {
    const db = tempDb();
    const ds = loadMemoryBank(TINY_BANK, TINY_QUERIES, await repoConverter());
    const tool = (await keywordTools().create(db, () => {})).tool;
    const run = await runDataset(ds, { db, profile: 'default', tool, modes: ['keyword'], limit: 10 });
    const [exact, , foreign] = run.outcomes.get('keyword')!;
    expect(recallAtK(exact!.units, exact!.results, 1)).toBe(1);
    expect(foreign).toMatchObject({ foreignHits: 0, leaks: 0 });
    expect(foreign!.returnedSnippets).toHaveLength(Math.min(3, foreign!.returned));
    expect(exact!.returnedSnippets).toBeUndefined();
    expect(foreignRows(run)).toEqual([{ mode: 'keyword', asked: 1, returned: foreign!.returned, withResults: foreign!.returned > 0 ? 1 : 0, foreignHits: 0, leaks: 0 }]);
  });
});

describe('--sqlite-per-project (one project per SQLite file)', () => {
  it('splits the dataset by project: each part holds its project, sessions, messages and questions only', () => {
    const ds = loadLocomo(tinyLocomo(3));
    const parts = splitByProject(ds);
    expect(parts).toHaveLength(3);
    parts.forEach((part, i) => {
      expect(part.records.filter((r) => r.kind === 'project').map((r) => r.id)).toEqual([`p_locomo${i}`]);
      expect(part.records.filter((r) => r.kind === 'session').every((r) => r.project_id === `p_locomo${i}`)).toBe(true);
      expect(part.records.filter((r) => r.kind === 'message').every((r) => String(r.session_id).startsWith(`locomo${i}-`))).toBe(true);
      expect(part.records.filter((r) => r.kind === 'message')).toHaveLength(4);
      expect(part.questions.map((q) => q.projectId)).toEqual(Array(5).fill(`p_locomo${i}`));
    });
  });

  it('asks every question in its own project\'s file and returns the outcomes in the dataset\'s order', async () => {
    const ds = loadLocomo(tinyLocomo(3));
    const run = await runPerProject(ds, { modes: ['keyword'], limit: 10, log: () => {} });
    const outcomes = run.outcomes.get('keyword')!;
    expect(outcomes.map((o) => o.questionId)).toEqual(ds.questions.map((q) => q.id));
    expect(run.messages).toBe(12);
    expect(outcomes.reduce((s, o) => s + o.leaks, 0)).toBe(0);
    expect(outcomes.filter((o) => o.questionId.endsWith('-q0')).every((o) => recallAtK(o.units, o.results, 1, true) === 1)).toBe(true);
    expect(run.status.get('keyword')!.usedModes).toEqual({ keyword: 15 });
  });
});

const LOCOMO_PATH = join(DEFAULT_DATA_DIR, 'locomo', 'locomo10.json');
const MB_PATH = join(DEFAULT_DATA_DIR, 'memorybank', 'memory_bank_cn.json');
const HAS_LOCOMO = existsSync(LOCOMO_PATH);
const HAS_MB = existsSync(MB_PATH);

describe('shared data (../shared/data)', () => {
  it.skipIf(!HAS_LOCOMO)(`LoCoMo loads with every known quirk normalised${HAS_LOCOMO ? '' : ' — SKIPPED: ../shared/data/locomo/locomo10.json absent'}`, () => {
    const ds = loadLocomo(JSON.parse(readFileSync(LOCOMO_PATH, 'utf8')) as LocomoConversation[]);
    expect(ds.records.filter((r) => r.kind === 'project')).toHaveLength(10);
    expect(ds.records.filter((r) => r.kind === 'session')).toHaveLength(272);
    expect(ds.records.filter((r) => r.kind === 'message')).toHaveLength(5882);
    expect(ds.questions).toHaveLength(1986);
    expect(ds.questions.filter((q) => q.evidence.length === 0)).toHaveLength(4);
    expect(ds.questions.filter((q) => ['multi-hop', 'temporal', 'open-domain', 'single-hop'].includes(q.category))).toHaveLength(1540);
    expect(ds.notes[0]).toMatch(/^1 malformed/);
    expect(ds.notes[1]).toMatch(/^2 evidence id\(s\) naming no turn/);
    // Every evidence message exists among the imported turns.
    const ids = new Set(ds.records.filter((r) => r.kind === 'message').map((r) => `${String(r.session_id)}|${String(r.external_id)}`));
    expect(ds.questions.flatMap((q) => q.evidence).every((e) => ids.has(`${e.sessionId}|${e.externalId}`))).toBe(true);
  });

  it.skipIf(!HAS_MB)(`MemoryBank dev questions all resolve to real turns${HAS_MB ? '' : ' — SKIPPED: ../shared/data/memorybank/memory_bank_cn.json absent'}`, async () => {
    const fixture = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', 'store', 'test', 'fixtures', 'cjk-dev-queries.json'), 'utf8')) as { queries: DevQuery[] };
    const ds = loadMemoryBank(JSON.parse(readFileSync(MB_PATH, 'utf8')) as MemoryBank, fixture.queries, await repoConverter());
    expect(ds.questions.length).toBeGreaterThanOrEqual(120);
    const kinds = new Map<string, number>();
    for (const q of ds.questions) kinds.set(q.category, (kinds.get(q.category) ?? 0) + 1);
    expect([...kinds.keys()].sort()).toEqual(['english', 'exact', 'foreign', 'paraphrase']);
    for (const q of ds.questions) expect(q.category === 'foreign' ? q.foreignEvidence.length : q.evidence.length).toBeGreaterThan(0);
  });
});
