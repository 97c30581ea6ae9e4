/**
 * `pnpm eval --sqlite-per-project`: the keyword questions asked again on SQLite with every project in
 * a file of its own. SQLite's FTS5 `bm25()` takes its document frequencies, message count and mean
 * length over the whole index of a file (every project of the profile); the PostgreSQL adapter over
 * the caller's project only (isolation). With one project per file the two backends rank from the
 * same statistics, so SQLite-per-project vs PostgreSQL measures everything but the statistics'
 * extent, and SQLite vs SQLite-per-project measures the extent alone (issue 19, item 4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import type { SearchMode } from '@recall/rpc-contract';
import { createSessionSearchTool } from '@recall/search-tool';
import type { QuestionOutcome } from './metrics.js';
import { runDataset, type RunResult } from './runner.js';
import type { EvalDataset } from './types.js';

/** The dataset cut into one dataset per project: its project record, sessions, their messages and the questions asked from it. */
export function splitByProject(dataset: EvalDataset): EvalDataset[] {
  const sessionProject = new Map<string, string>();
  for (const r of dataset.records) if (r.kind === 'session') sessionProject.set(String(r.id), String(r.project_id));
  const projects = dataset.records.filter((r) => r.kind === 'project').map((r) => String(r.id));
  return projects.map((projectId) => ({
    name: dataset.name,
    notes: dataset.notes,
    records: dataset.records.filter((r) =>
      r.kind === 'project' ? r.id === projectId : r.kind === 'session' ? r.project_id === projectId : sessionProject.get(String(r.session_id)) === projectId,
    ),
    questions: dataset.questions.filter((q) => q.projectId === projectId),
  }));
}

/** Imports each project into its own temp SQLite home and asks its questions there (keyword tool, no semantic source); the outcomes in the dataset's question order. */
export async function runPerProject(
  dataset: EvalDataset,
  options: { modes: readonly SearchMode[]; limit: number; log: (line: string) => void },
): Promise<RunResult> {
  const byId = new Map<string, Map<SearchMode, QuestionOutcome>>();
  let messages = 0;
  let importMs = 0;
  const status: RunResult['status'] = new Map();
  for (const part of splitByProject(dataset)) {
    if (part.questions.length === 0) continue;
    const home = mkdtempSync(join(tmpdir(), `recall-eval-${dataset.name}-project-`));
    const db = openDatabase(profileDatabasePath(home, 'default'), { profile: 'default' });
    try {
      // Keyword only, composed as the product composes it without a semantic source (tools.ts keywordTools).
      const run = await runDataset(part, { db, profile: 'default', tool: createSessionSearchTool({ db, semantic: null }), modes: options.modes, limit: options.limit });
      messages += run.messages;
      importMs += run.importMs;
      for (const [mode, seen] of run.status) {
        const into = status.get(mode) ?? status.set(mode, { usedModes: {}, semanticStatus: {}, notes: [] }).get(mode)!;
        for (const [k, n] of Object.entries(seen.usedModes)) into.usedModes[k] = (into.usedModes[k] ?? 0) + n;
        for (const [k, n] of Object.entries(seen.semanticStatus)) into.semanticStatus[k] = (into.semanticStatus[k] ?? 0) + n;
        for (const note of seen.notes) if (into.notes.length < 5 && !into.notes.includes(note)) into.notes.push(note);
      }
      for (const [mode, list] of run.outcomes) for (const o of list) (byId.get(o.questionId) ?? byId.set(o.questionId, new Map()).get(o.questionId)!).set(mode, o);
    } finally {
      db.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
  const outcomes = new Map<SearchMode, QuestionOutcome[]>();
  for (const mode of options.modes) outcomes.set(mode, dataset.questions.flatMap((q) => byId.get(q.id)?.get(mode) ?? []));
  options.log(`eval: ${dataset.name}: asked again with one project per SQLite file (${outcomes.get(options.modes[0]!)?.length ?? 0} questions)`);
  return { dataset: dataset.name, messages, importMs, outcomes, status };
}
