/**
 * The dry run of an import (`recall import --dry-run`): the same decisions as apply.ts's
 * SourceImporter — project mapping, idempotency, the store's lineage rules — made by reading the
 * storage through the ports and writing nothing. `PlanState` carries what the run would have
 * created so far from one batch to the next.
 */
import type { Storage } from '@recall/storage-ports';
import { normalizeFolderPath, SessionAlreadyCompressedError } from '@recall/store';
import { emptyCounts, newProjectCount, type Counts, type ProjectCount, type ProjectMapping } from './counts.js';
import type { MessageRecord, SessionRecord, SourceRecord } from './records.js';

/** What a dry run would have created so far. */
export interface PlanState {
  /** Sessions seen so far (id → project key). */
  planned: Map<string, string>;
  /** Parent id → the compression child this run would create (the store refuses a second). */
  plannedContinuations: Map<string, string>;
  /** Sessions seen so far that are (or would be created) hidden — subagent work. */
  plannedHidden: Set<string>;
  /** Per-project totals of the batches merged so far (a `new:<folder>` key is counted once). */
  perProject: Map<string, ProjectCount>;
}

/** The compression child `parentId` already has, as the store's create would find it. */
async function existingContinuation(storage: Storage, parentId: string): Promise<string | undefined> {
  try {
    return (await storage.sessions.conversation(parentId)).find((m) => m.parentSessionId === parentId && m.lineage === 'compression')?.id;
  } catch {
    return undefined; // an unknown parent has none
  }
}

/** External ids of the batch's messages that their sessions already hold, as `session\nexternal` keys. */
async function presentMessages(storage: Storage, batch: readonly SourceRecord[]): Promise<Set<string>> {
  const bySession = new Map<string, string[]>();
  for (const rec of batch) {
    if (rec.kind !== 'message') continue;
    const ids = bySession.get(rec.sessionId);
    if (ids) ids.push(rec.externalId);
    else bySession.set(rec.sessionId, [rec.externalId]);
  }
  const present = new Set<string>();
  for (const [sessionId, ids] of bySession) for (const id of await storage.messages.existingExternalIds(sessionId, ids)) present.add(`${sessionId}\n${id}`);
  return present;
}

async function projectName(storage: Storage, key: string): Promise<string | null> {
  if (key === 'none') return null;
  if (key.startsWith('new:')) return key.slice(4).split(/[\\/]/).filter(Boolean).pop() ?? key.slice(4);
  return (await storage.projects.find(key))?.name ?? null;
}

async function plannedProject(storage: Storage, mapping: ProjectMapping, state: PlanState, rec: SessionRecord, counts: Counts): Promise<string> {
  if ((rec.lineage === 'compression' || rec.lineage === 'delegation') && rec.parentId !== null) {
    return state.planned.get(rec.parentId) ?? (await storage.sessions.find(rec.parentId))?.projectId ?? 'none';
  }
  if (mapping.kind === 'none') return 'none';
  if (mapping.kind === 'project') return mapping.projectId;
  const folder = rec.gitRepoRoot ?? rec.cwd ?? null;
  if (folder === null || folder.trim() === '') return 'none';
  let normalized: string;
  try {
    normalized = normalizeFolderPath(folder);
  } catch {
    return 'none';
  }
  const existing = await storage.projects.findByFolder(normalized);
  if (existing) return existing.id;
  const key = `new:${normalized}`;
  if (!state.perProject.has(key) && !counts.perProject.has(key)) counts.projectsCreated++;
  return key;
}

/** What applying `batch` would do, read-only. */
export async function planBatch(storage: Storage, mapping: ProjectMapping, state: PlanState, batch: readonly SourceRecord[]): Promise<Counts> {
  const counts = emptyCounts();
  const present = await presentMessages(storage, batch);
  const entryOf = async (key: string) => counts.perProject.get(key) ?? newProjectCount(key, await projectName(storage, key));
  for (const rec of batch) {
    if (rec.kind === 'error') {
      counts.errors.push({ file: rec.file, line: rec.line, code: rec.code, message: rec.message });
      continue;
    }
    if (rec.kind === 'session-update') continue;
    if (rec.kind === 'session') {
      if (state.planned.has(rec.id)) continue;
      const existing = await storage.sessions.find(rec.id);
      if (existing) {
        state.planned.set(rec.id, existing.projectId ?? 'none');
        if (existing.hidden) state.plannedHidden.add(rec.id);
        continue;
      }
      if (rec.lineage === 'compression' && rec.parentId !== null) {
        const continuation = state.plannedContinuations.get(rec.parentId) ?? (await existingContinuation(storage, rec.parentId));
        if (continuation !== undefined) {
          counts.errors.push({ file: rec.file, line: rec.line, code: 'session_already_compressed', message: new SessionAlreadyCompressedError(rec.parentId, continuation).message });
          continue;
        }
        state.plannedContinuations.set(rec.parentId, rec.id);
      }
      const key = await plannedProject(storage, mapping, state, rec, counts);
      state.planned.set(rec.id, key);
      counts.sessions++;
      // The store's rules: delegation children are hidden unless said otherwise; folded children are not conversations of their own.
      const hidden = rec.hidden ?? rec.lineage === 'delegation';
      const conversation = !hidden && rec.archived !== true && rec.lineage !== 'compression' && rec.lineage !== 'delegation';
      if (hidden) {
        state.plannedHidden.add(rec.id);
        counts.hiddenSessions++;
      }
      if (conversation) counts.conversations++;
      const entry = await entryOf(key);
      entry.sessions++;
      if (hidden) entry.hiddenSessions++;
      if (conversation) entry.conversations++;
      counts.perProject.set(key, entry);
      continue;
    }
    const message: MessageRecord = rec;
    const key = state.planned.get(message.sessionId);
    if (key === undefined) {
      counts.errors.push({ file: message.file, line: message.line, code: 'session_not_found', message: `No session ${JSON.stringify(message.sessionId)} for this message.` });
      continue;
    }
    if (present.has(`${message.sessionId}\n${message.externalId}`)) {
      counts.skipped++;
      continue;
    }
    counts.messages++;
    const hidden = state.plannedHidden.has(message.sessionId);
    if (hidden) counts.hiddenMessages++;
    const entry = await entryOf(key);
    entry.messages++;
    if (hidden) entry.hiddenMessages++;
    counts.perProject.set(key, entry);
  }
  return counts;
}
