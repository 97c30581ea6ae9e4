/**
 * The semantic index's state in words for the places outside the Index panel that show it: the
 * badge (pill and the Index tab's status dot, which needs an accessible name) and the reason the
 * search panel's Semantic option is disabled for a scope. A provider that is configured while no
 * project is switched on is "no project on", not "disabled". No React, no I/O.
 */
import type { IndexStatus } from '@recall/rpc-contract';

type Semantic = IndexStatus['semantic'];

/** The short badge: ready / filling / unavailable / disabled / no project on. */
export function semanticBadge(sem: Pick<Semantic, 'status' | 'reason' | 'configured'>): string {
  if (sem.status === 'disabled' && sem.configured && (sem.reason === 'no_project_enabled' || sem.reason === 'no_project')) return 'no project on';
  if (sem.status === 'disabled' && sem.reason === 'turned_off') return 'turned off';
  if (sem.status === 'disabled') return sem.configured ? 'off' : 'disabled';
  if (sem.status === 'partial') return 'filling';
  return sem.status;
}

/** The Index tab's dot, read out: "semantic index: filling" (the tab then reads "Index, semantic index: filling"). */
export function semanticDotLabel(sem: Pick<Semantic, 'status' | 'reason' | 'configured'>): string {
  return `semantic index: ${semanticBadge(sem)}`;
}

/**
 * Why semantic search cannot run in this project now (the search panel disables the option and
 * says so), or null when it can (ready, or partly filled: what is ready is used).
 */
export function semanticUnavailableFor(status: IndexStatus | null, projectId: string | null): string | null {
  if (!status) return null;
  const sem = status.semantic;
  if (!sem.configured) return 'no embedding model is set up (see the Index tab).';
  if (sem.status === 'disabled' && sem.reason === 'turned_off') return 'it is turned off in the configuration.';
  if (projectId === null) return 'this conversation belongs to no project.';
  const row = sem.projects.find((p) => p.projectId === projectId);
  if (!row || !row.consent.enabled || row.reason === 'consent_for_other_endpoint') return 'it is not switched on for this project (see the Index tab).';
  if (row.status === 'unavailable') return 'the embedding model cannot be reached right now.';
  if (row.status === 'partial' && row.ready === 0) return 'nothing of this project is indexed yet.';
  return null;
}

/** A project counts as written in Chinese/Japanese/Korean from this share of its letters on. */
export const CJK_MAJORITY = 0.3;

/**
 * The warning when the embedding model cannot read the project's language (the built-in model is
 * English-only and the project is mostly Chinese, Japanese or Korean), or null.
 */
export function languageWarning(provider: { languages: string } | null | undefined, row: { cjkShare?: number | null | undefined }): string | null {
  if (!provider || provider.languages !== 'english-only') return null;
  if (row.cjkShare === null || row.cjkShare === undefined || row.cjkShare < CJK_MAJORITY) return null;
  return 'Most of this project is written in Chinese, Japanese or Korean, which the built-in model cannot read: its semantic results here would be noise. Keyword search finds these words exactly; for meaning, configure a multilingual embedding model.';
}
