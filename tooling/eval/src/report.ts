/**
 * Turns eval runs into what is published: a JSON document (every aggregate plus per-question ranks,
 * for re-analysis), Markdown tables for docs/benchmarks.md and the SVG charts (svg.ts), and
 * replaces the generated part of docs/benchmarks.md between marker comments, leaving the
 * hand-written rest of the file untouched. Grouping: LoCoMo per split (dev = conversations 0–4,
 * test = 5–9) and category, with an "all 1–4" row (the categories published LoCoMo retrieval
 * numbers use; adversarial is reported on its own row); MemoryBank per question kind, with the
 * foreign-project kind reported as "results returned / results from the answer's project".
 */
import type { SearchMode } from '@recall/rpc-contract';
import { aggregate, recallAtK, type Aggregate, type QuestionOutcome } from './metrics.js';
import type { RunResult } from './runner.js';
import { recallChartSvg, type ChartSeries } from './svg.js';

export const MODE_COLORS: Record<SearchMode, string> = { keyword: '#1f6feb', semantic: '#d4380d', hybrid: '#389e0d' };
export const LOCOMO_SCORED = ['multi-hop', 'temporal', 'open-domain', 'single-hop'];
export const LOCOMO_ORDER = [...LOCOMO_SCORED, 'adversarial'];
export const MB_ORDER = ['exact', 'paraphrase', 'english'];

export interface GroupRow {
  mode: SearchMode;
  split: string;
  group: string;
  agg: Aggregate;
}

export interface ForeignRow {
  mode: SearchMode;
  asked: number;
  returned: number;
  withResults: number;
  foreignHits: number;
  leaks: number;
}

export function groupRows(run: RunResult): GroupRow[] {
  const rows: GroupRow[] = [];
  const isLocomo = run.dataset === 'locomo';
  for (const [mode, outcomes] of run.outcomes) {
    const splits = isLocomo ? ['dev', 'test'] : ['dev'];
    for (const split of splits) {
      const inSplit = outcomes.filter((o) => o.split === split);
      if (inSplit.length === 0) continue;
      const order = isLocomo ? LOCOMO_ORDER : MB_ORDER;
      for (const group of order) {
        const g = inSplit.filter((o) => o.category === group);
        if (g.length > 0) rows.push({ mode, split, group, agg: aggregate(g) });
      }
      const all = isLocomo ? inSplit.filter((o) => LOCOMO_SCORED.includes(o.category)) : inSplit.filter((o) => MB_ORDER.includes(o.category));
      rows.push({ mode, split, group: isLocomo ? 'all 1–4' : 'all scored', agg: aggregate(all) });
    }
  }
  return rows;
}

export function foreignRows(run: RunResult): ForeignRow[] {
  const out: ForeignRow[] = [];
  for (const [mode, outcomes] of run.outcomes) {
    const f = outcomes.filter((o) => o.category === 'foreign');
    if (f.length === 0) continue;
    out.push({
      mode,
      asked: f.length,
      returned: f.reduce((s, o) => s + o.returned, 0),
      withResults: f.filter((o) => o.returned > 0).length,
      foreignHits: f.reduce((s, o) => s + o.foreignHits, 0),
      leaks: f.reduce((s, o) => s + o.leaks, 0),
    });
  }
  return out;
}

const n3 = (x: number): string => (Number.isNaN(x) ? '–' : x.toFixed(3));
const msf = (x: number): string => (Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(2) : x.toFixed(1));

export function markdownTable(rows: readonly GroupRow[]): string {
  const lines = [
    '| mode | split | category | questions (scored) | R@1 | R@5 | R@10 | anchor R@1 / R@5 | conversation R@1 / R@5 | MRR | all evidence @10 | p50 / p95 ms | leaks |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const a = r.agg;
    const bold = r.group.startsWith('all');
    const b = (s: string) => (bold ? `**${s}**` : s);
    lines.push(
      `| ${r.mode} | ${r.split} | ${b(r.group)} | ${a.asked} (${a.scored}) | ${n3(a.recall[1])} | ${b(n3(a.recall[5]))} | ${b(n3(a.recall[10]))} | ${n3(a.recallAnchor[1])} / ${n3(a.recallAnchor[5])} | ${n3(a.recallConversation[1])} / ${n3(a.recallConversation[5])} | ${n3(a.mrr)} | ${n3(a.allFound10)} | ${msf(a.p50Ms)} / ${msf(a.p95Ms)} | ${a.leaks}${a.errors ? ` (${a.errors} errors)` : ''} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Anchor hit@1 / @5 per group (is one of the first k anchors an evidence message?), printed under
 * the main table: unlike anchor R@k it does not cap a question labelled with several turns.
 */
export function anchorHitTable(rows: readonly GroupRow[]): string {
  const lines = ['| mode | split | category | anchor hit@1 | anchor hit@5 |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.mode} | ${r.split} | ${r.group} | ${n3(r.agg.hitAnchor[1])} | ${n3(r.agg.hitAnchor[5])} |`);
  return lines.join('\n');
}

/** What each foreign-project question got back instead (first mode only: the asking project's own best matches). */
export function foreignDetails(run: RunResult, questions: readonly { id: string; query: string }[]): string {
  const first = [...run.outcomes.values()][0] ?? [];
  const text = new Map(questions.map((q) => [q.id, q.query]));
  const lines = first
    .filter((o) => o.category === 'foreign')
    .map((o) => `- ${JSON.stringify(text.get(o.questionId) ?? o.questionId)} → ${o.returned} result(s) from the asking project${o.returnedSnippets?.length ? `, top: ${o.returnedSnippets.map((s) => JSON.stringify(s)).join(' · ')}` : ''}; from the answer's project: ${o.foreignHits}`);
  return lines.join('\n');
}

export function foreignTable(rows: readonly ForeignRow[]): string {
  const lines = ['| mode | foreign-project questions | results returned (all from the asking project) | questions with ≥1 result | results from the answer\'s project | leaks |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.mode} | ${r.asked} | ${r.returned} | ${r.withResults} | ${r.foreignHits} | ${r.leaks} |`);
  return lines.join('\n');
}

/** One SVG per (dataset, split): groups = categories, one bar per mode. */
export function charts(run: RunResult): { name: string; svg: string }[] {
  const rows = groupRows(run);
  const modes = [...run.outcomes.keys()];
  const series: ChartSeries[] = modes.map((m) => ({ name: m, color: MODE_COLORS[m] }));
  const splits = [...new Set(rows.map((r) => r.split))];
  return splits.map((split) => {
    const groups = [...new Set(rows.filter((r) => r.split === split).map((r) => r.group))];
    const values = groups.map((g) =>
      modes.map((m) => {
        const row = rows.find((r) => r.split === split && r.group === g && r.mode === m);
        return row ? { r1: row.agg.recall[1], r5: row.agg.recall[5], r10: row.agg.recall[10] } : { r1: NaN, r5: NaN, r10: NaN };
      }),
    );
    const title = run.dataset === 'locomo' ? `LoCoMo ${split} (conversations ${split === 'dev' ? '0–4' : '5–9'}): evidence recall@k` : `MemoryBank Chinese dev questions: evidence recall@k`;
    return { name: `${run.dataset}-${split}`, svg: recallChartSvg({ title, subtitle: 'evidence counts when it is a result\'s anchor or in its other_message_ids', groups, series, values }) };
  });
}

export function outcomeJson(o: QuestionOutcome): Record<string, unknown> {
  const firstHit = o.results.findIndex((r) => r.anchorUnits.some((u) => o.units.includes(u)) || r.otherUnits.some((u) => o.units.includes(u)));
  const recall = o.units.length ? { recall_at: Object.fromEntries([1, 5, 10].map((k) => [k, Math.round(recallAtK(o.units, o.results, k) * 1000) / 1000])), anchors: o.results.map((r) => r.anchorUnits[0] ?? null) } : {};
  return { id: o.questionId, category: o.category, split: o.split, units: o.units.length, first_hit_rank: firstHit >= 0 ? firstHit + 1 : null, ...recall, returned: o.returned, latency_ms: Math.round(o.latencyMs * 100) / 100, leaks: o.leaks, foreign_hits: o.foreignHits, ...(o.returnedSnippets ? { returned_snippets: o.returnedSnippets } : {}), ...(o.error ? { error: o.error } : {}) };
}

export const GENERATED_BEGIN = '<!-- eval:generated:begin (written by `pnpm eval`; edits here are overwritten) -->';
export const GENERATED_END = '<!-- eval:generated:end -->';

/** Replaces the text between the two markers, or appends a marked section when they are absent. */
export function replaceGenerated(doc: string, body: string, begin = GENERATED_BEGIN, end = GENERATED_END): string {
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  const block = `${begin}\n${body.trim()}\n${end}`;
  if (i >= 0 && j > i) return doc.slice(0, i) + block + doc.slice(j + end.length);
  return `${doc.trimEnd()}\n\n${block}\n`;
}
