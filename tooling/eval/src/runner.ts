/**
 * Runs one eval dataset end to end through the real product paths: writes its records as a
 * recall-jsonl file, imports it with the real importer (@recall/importers) into the profile database
 * it is given (a temp home in `pnpm eval`), adds one fresh, empty "asker" session per project
 * (also through the importer), then asks every question with the real `session_search` tool
 * (`execute(args, { currentSessionId: <asker of the question's project> })`) in each requested mode,
 * timing each call. Results are mapped back to evidence units through the message ids the importer
 * assigned, and every result — anchor and other_message_ids — is checked against the truth
 * (the loader's session → project assignment) for cross-project leaks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJsonlFile } from '@recall/importers';
import type { RecallDatabase } from '@recall/schema';
import type { SearchMode } from '@recall/rpc-contract';
import type { SessionSearchResult, SessionSearchTool } from '@recall/search-tool';
import type { QuestionOutcome, RankedResult } from './metrics.js';
import type { EvalDataset, EvalQuestion, JsonlRecord } from './types.js';

/** What the eval asks: the `execute` of a real session_search tool (tools.ts builds it). */
export type SearchExecutor = Pick<SessionSearchTool, 'execute'>;

export interface RunOptions {
  db: RecallDatabase;
  profile: string;
  /** The session_search tool to ask (composed for `db` by tools.ts). */
  tool: SearchExecutor;
  modes: readonly SearchMode[];
  /** Results per call (session_search `limit`, 1-50). */
  limit: number;
  /** Progress of the question loop, e.g. for a status line. */
  onProgress?: (mode: SearchMode, done: number, total: number) => void;
  /** Called after the import, before the first question (e.g. to build a semantic index). */
  afterImport?: () => Promise<void>;
  /** The dataset is already imported into `db` (this summary): ask the questions only (e.g. again on another storage). */
  imported?: { messages: number; ms: number };
}

export interface RunResult {
  dataset: string;
  /** Messages imported (from the importer's summary). */
  messages: number;
  importMs: number;
  outcomes: Map<SearchMode, QuestionOutcome[]>;
  /** semantic_status / used_mode seen per mode (e.g. a semantic run that fell back). */
  status: Map<SearchMode, { usedModes: Record<string, number>; semanticStatus: Record<string, number>; notes: string[] }>;
}

export function askerSessionId(projectId: string): string {
  return `eval-asker-${projectId.replace(/^p_/, '')}`;
}

function jsonlWithAskers(dataset: EvalDataset): JsonlRecord[] {
  const projects = dataset.records.filter((r) => r.kind === 'project').map((r) => String(r.id));
  const askers: JsonlRecord[] = projects.map((p) => ({ kind: 'session', id: askerSessionId(p), project_id: p, lineage: 'root', source: 'eval', title: 'eval asker (empty)' }));
  return [...dataset.records, ...askers];
}

export async function importDataset(db: RecallDatabase, dataset: EvalDataset): Promise<{ messages: number; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-eval-jsonl-'));
  try {
    const path = join(dir, `${dataset.name}.jsonl`);
    writeFileSync(path, jsonlWithAskers(dataset).map((r) => JSON.stringify(r)).join('\n') + '\n');
    const t0 = performance.now();
    const summary = await importJsonlFile(db, path);
    if (summary.errorCount > 0) {
      const first = summary.errors[0];
      throw new Error(`eval import of ${dataset.name}: ${summary.errorCount} line(s) rejected (first: line ${first?.line} [${first?.code}] ${first?.message})`);
    }
    return { messages: summary.messages, ms: performance.now() - t0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Truth {
  /** message id → `${sessionId}|${externalId}` */
  key: Map<number, string>;
  /** message id → project id (through its session, per the loader) */
  project: Map<number, string>;
  sessionProject: Map<string, string>;
}

function readTruth(db: RecallDatabase, dataset: EvalDataset): Truth {
  const sessionProject = new Map<string, string>();
  for (const r of jsonlWithAskers(dataset)) if (r.kind === 'session') sessionProject.set(String(r.id), String(r.project_id));
  const key = new Map<number, string>();
  const project = new Map<number, string>();
  const rows = db.raw.prepare('select id, session_id as sessionId, external_id as externalId from messages').all() as { id: number; sessionId: string; externalId: string | null }[];
  for (const row of rows) {
    key.set(row.id, `${row.sessionId}|${row.externalId ?? ''}`);
    const p = sessionProject.get(row.sessionId);
    if (p !== undefined) project.set(row.id, p);
  }
  return { key, project, sessionProject };
}

function outcomeOf(q: EvalQuestion, res: SessionSearchResult, latencyMs: number, truth: Truth): QuestionOutcome {
  const unitOf = new Map<string, string>(q.evidence.map((e) => [`${e.sessionId}|${e.externalId}`, e.unit]));
  const unitsOf = (ids: readonly number[]): string[] => [...new Set(ids.map((id) => unitOf.get(truth.key.get(id) ?? '')).filter((u): u is string => u !== undefined))];
  let leaks = 0;
  let foreignHits = 0;
  const results: RankedResult[] = [];
  for (const item of res.results) {
    const ids = [item.message_id, ...(item.other_message_ids ?? [])];
    for (const id of ids) {
      const p = truth.project.get(id);
      if (p !== q.projectId) leaks++;
      if (q.foreignProjectId !== undefined && p === q.foreignProjectId) foreignHits++;
    }
    if (truth.sessionProject.get(item.session_id) !== q.projectId) leaks++;
    const inConversation = new Set([item.session_id, item.conversation_id]);
    const conversationUnits = [...new Set(q.evidence.filter((e) => inConversation.has(e.sessionId)).map((e) => e.unit))];
    results.push({ anchorUnits: unitsOf([item.message_id]), otherUnits: unitsOf(item.other_message_ids ?? []), conversationUnits });
  }
  return {
    questionId: q.id,
    category: q.category,
    split: q.split,
    units: [...new Set(q.evidence.map((e) => e.unit))],
    results,
    latencyMs,
    leaks,
    returned: res.results.length,
    foreignHits,
    ...(q.foreignProjectId !== undefined ? { returnedSnippets: res.results.slice(0, 3).map((r) => r.snippet.replace(/\s+/g, ' ').slice(0, 60)) } : {}),
    ...(res.error ? { error: `${res.error.code}: ${res.error.message}` } : {}),
  };
}

/** Imports the dataset into `db` and asks every question in every mode. */
export async function runDataset(dataset: EvalDataset, options: RunOptions): Promise<RunResult> {
  const imported = options.imported ?? (await importDataset(options.db, dataset));
  await options.afterImport?.();
  const truth = readTruth(options.db, dataset);
  const outcomes = new Map<SearchMode, QuestionOutcome[]>();
  const status: RunResult['status'] = new Map();
  for (const mode of options.modes) {
    const list: QuestionOutcome[] = [];
    const seen = { usedModes: {} as Record<string, number>, semanticStatus: {} as Record<string, number>, notes: [] as string[] };
    let done = 0;
    for (const q of dataset.questions) {
      const t0 = performance.now();
      const res: SessionSearchResult = await options.tool.execute({ query: q.query, search_mode: mode, limit: options.limit }, { currentSessionId: askerSessionId(q.projectId), profile: options.profile });
      const latency = performance.now() - t0;
      list.push(outcomeOf(q, res, latency, truth));
      seen.usedModes[res.used_mode] = (seen.usedModes[res.used_mode] ?? 0) + 1;
      seen.semanticStatus[String(res.semantic_status)] = (seen.semanticStatus[String(res.semantic_status)] ?? 0) + 1;
      for (const n of res.notes) if (seen.notes.length < 5 && !seen.notes.includes(n)) seen.notes.push(n);
      done++;
      if (done % 50 === 0 || done === dataset.questions.length) options.onProgress?.(mode, done, dataset.questions.length);
    }
    outcomes.set(mode, list);
    status.set(mode, seen);
  }
  return { dataset: dataset.name, messages: imported.messages, importMs: imported.ms, outcomes, status };
}
