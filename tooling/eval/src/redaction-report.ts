/**
 * False positives of @recall/redaction on the eval data: every message of LoCoMo (the dialogue as
 * the eval imports it, captions included) and MemoryBank (Chinese, as the eval imports it), plus
 * every other string of their files (LoCoMo's summaries, observations and QA — the eval's questions;
 * the English MemoryBank) and the MemoryBank dev questions
 * run through the built-in redaction pass, counted per kind. None of these texts holds a secret, so
 * every span is a false positive. Data is read in place from the shared data folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRedactor } from '@recall/redaction';
import { REPO_ROOT } from './eval.js';
import { loadLocomo, type LocomoConversation } from './locomo.js';
import type { MemoryBank, MemoryBankConverter } from './memorybank.js';
import type { JsonlRecord } from './types.js';

/** Counts of one corpus: texts and characters read, spans found per kind, and a few examples. */
export interface RedactionCorpusReport {
  corpus: string;
  texts: number;
  chars: number;
  redactions: number;
  byKind: Record<string, number>;
  /** Up to 5 spans with 30 characters of context each side. */
  examples: string[];
}

function count(corpus: string, texts: Iterable<string>): RedactionCorpusReport {
  const redactor = createRedactor();
  const report: RedactionCorpusReport = { corpus, texts: 0, chars: 0, redactions: 0, byKind: {}, examples: [] };
  for (const text of texts) {
    report.texts++;
    report.chars += text.length;
    const r = redactor.redact(text);
    for (const s of r.spans) {
      report.redactions++;
      report.byKind[s.kind] = (report.byKind[s.kind] ?? 0) + 1;
      if (report.examples.length < 5) report.examples.push(`${s.kind}: …${text.slice(Math.max(0, s.start - 30), s.end + 30).replace(/\s+/g, ' ')}…`);
    }
  }
  return report;
}

const messageTexts = (records: readonly JsonlRecord[]): string[] => records.filter((r) => r.kind === 'message').map((r) => String(r['content'] ?? ''));

/** Every string value inside a parsed JSON document, except the ones `skip` names by key. */
function* strings(value: unknown, skip: ReadonlySet<string> = new Set(), key = ''): Generator<string> {
  if (typeof value === 'string') {
    if (!skip.has(key)) yield value;
  } else if (Array.isArray(value)) {
    for (const v of value) yield* strings(v, skip, key);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* strings(v, skip, k);
  }
}

/** The reports for every corpus found under `dataDir`, and the names of the files that were missing. */
export async function redactionReport(dataDir: string): Promise<{ reports: RedactionCorpusReport[]; missing: string[] }> {
  const reports: RedactionCorpusReport[] = [];
  const missing: string[] = [];
  const locomoPath = join(dataDir, 'locomo', 'locomo10.json');
  if (existsSync(locomoPath)) {
    const data = JSON.parse(readFileSync(locomoPath, 'utf8')) as LocomoConversation[];
    reports.push(count('LoCoMo dialogue (every imported message, captions included)', messageTexts(loadLocomo(data).records)));
    // The rest of the file: summaries, observations, QA (not imported, but text the project handles).
    const rest = data.map((c) => Object.fromEntries(Object.entries(c as unknown as Record<string, unknown>).filter(([k]) => k !== 'conversation')));
    reports.push(count('LoCoMo other strings (summaries, observations, QA)', strings(rest)));
  } else missing.push(locomoPath);
  const cnPath = join(dataDir, 'memorybank', 'memory_bank_cn.json');
  if (existsSync(cnPath)) {
    const bank = JSON.parse(readFileSync(cnPath, 'utf8')) as MemoryBank;
    const script = (await import(pathToFileURL(join(REPO_ROOT, 'tooling', 'scripts', 'memorybank-to-jsonl.mjs')).href)) as { convertMemoryBank: MemoryBankConverter };
    reports.push(count('MemoryBank Chinese (every imported message)', messageTexts(script.convertMemoryBank(bank, { lang: 'cn' }))));
    // The questions the eval embeds as queries (the repository's hand-labelled dev set).
    const fixture = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', 'store', 'test', 'fixtures', 'cjk-dev-queries.json'), 'utf8')) as { queries: { query: string }[] };
    reports.push(count('MemoryBank dev questions (eval queries)', fixture.queries.map((q) => q.query)));
  } else missing.push(cnPath);
  const enPath = join(dataDir, 'memorybank', 'memory_bank_en.json');
  if (existsSync(enPath)) reports.push(count('MemoryBank English (every string)', strings(JSON.parse(readFileSync(enPath, 'utf8')))));
  else missing.push(enPath);
  return { reports, missing };
}

/** The reports as a Markdown table (one row per corpus). */
export function redactionMarkdown(reports: readonly RedactionCorpusReport[]): string {
  const rows = reports.map((r) => `| ${r.corpus} | ${r.texts.toLocaleString('en')} | ${r.chars.toLocaleString('en')} | ${r.redactions} | ${Object.entries(r.byKind).map(([k, n]) => `${k} ${n}`).join(', ') || '—'} |`);
  return ['| corpus | texts | characters | redactions | per kind |', '|---|---:|---:|---:|---|', ...rows].join('\n');
}
