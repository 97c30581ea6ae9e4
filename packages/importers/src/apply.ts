/**
 * Writes normalised source records (records.ts) into a storage (SQLite or PostgreSQL, through the
 * ports' WriteBatches): the one writer behind
 * `recall import --from …` and live sync. It owns the project mapping (an explicit project, one
 * project per folder through the store's projectForFolder — none for a folder it refuses, such as the
 * home folder or `/` — or none), idempotency (sessions by id,
 * messages by session + external id — a re-run or a grown transcript writes only what is new),
 * batching, the per-line error report and the dry run.
 *
 * Batches: records are applied N at a time as one batch program in one write transaction (bulk
 * mode: no savepoint per call, which keeps SQLite's FTS fast). If the store refuses any record of a
 * batch, the whole batch is rolled back and re-applied record by record with a savepoint each
 * (batchIsolate), so the refused line
 * is reported by file and line and every other line is still imported. A process killed mid-import
 * loses at most the open transaction; the next run re-reads and skips what was committed.
 *
 * Ownership rules: a new root (or branch/reset) session gets the mapping's project; compression and
 * delegation children always share their parent's (the store enforces it); an existing session's
 * project is never touched — the user may have moved it since.
 */
import type { Session } from '@recall/rpc-contract';
import { RecallSchemaError } from '@recall/schema';
import { batchCall, batchIsolate, type BatchProgram, type BatchStores, type Storage } from '@recall/storage-ports';
import { FolderPathError, StoreError } from '@recall/store';
import { emptyCounts, newProjectCount, type Counts, type ProjectCount, type ProjectMapping, type SourceLineError } from './counts.js';
import { planBatch, type PlanState } from './dry-run.js';
import { toNewMessage, type MessageRecord, type SessionRecord, type SessionUpdateRecord, type SourceRecord } from './records.js';
import { abortsImport, ImportAbortedError } from './errors.js';
import { batchesOf, storageOf, type ImportTarget } from './target.js';

export interface SourceImportSummary {
  files: number;
  /** Records read from the sources (sessions, messages, errors). */
  records: number;
  projectsCreated: number;
  sessions: number;
  /** Sessions that existed before this import and whose fields it changed (never the ones it created). */
  sessionsUpdated: number;
  messages: number;
  /** Of `sessions`: the new conversations as project lists count them (see ProjectCount.conversations). */
  conversations: number;
  /** Of `sessions`: new hidden sessions (subagent work), never listed or searched. */
  hiddenSessions: number;
  /** Of `messages`: new messages of hidden sessions. */
  hiddenMessages: number;
  /** Messages already present (by external id). */
  skipped: number;
  /** New sessions and messages per owning project. */
  perProject: ProjectCount[];
  errors: SourceLineError[];
  errorCount: number;
  dryRun: boolean;
}

export const MAX_REPORTED_SOURCE_ERRORS = 1000;
/** Records per write transaction. */
export const DEFAULT_SOURCE_BATCH = 2000;

export function emptySourceSummary(dryRun = false): SourceImportSummary {
  return {
    files: 0,
    records: 0,
    projectsCreated: 0,
    sessions: 0,
    sessionsUpdated: 0,
    messages: 0,
    conversations: 0,
    hiddenSessions: 0,
    hiddenMessages: 0,
    skipped: 0,
    perProject: [],
    errors: [],
    errorCount: 0,
    dryRun,
  };
}

export function lineErrorOf(error: unknown, rec: { file: string; line: number }): SourceLineError | null {
  if ((error instanceof StoreError || error instanceof RecallSchemaError) && !abortsImport(error)) {
    return { file: rec.file, line: rec.line, code: (error as Error & { code: string }).code, message: error.message.slice(0, 500) };
  }
  return null;
}

/**
 * Applies records to one storage. Create it with `open()`, feed it with `add()` (it flushes full
 * batches itself; await what it returns) and call `finish()` at the end; `summary` is current after
 * every flush.
 */
export class SourceImporter {
  readonly summary: SourceImportSummary;
  private batch: SourceRecord[] = [];
  /** Dry-run state: what this run would have created so far, since nothing is written. */
  private readonly planState: PlanState = { planned: new Map(), plannedContinuations: new Map(), plannedHidden: new Set(), perProject: new Map() };
  private readonly perProject = this.planState.perProject;
  /** Sessions this import created (a later record filling in their title or model is not an "update"), and which are hidden. */
  private readonly created = new Map<string, { hidden: boolean }>();
  /** Sessions in `created` only as a cache of their hidden flag: they existed before this import. */
  private readonly preexisting = new Set<string>();
  /** Project names already read (null = no such project). */
  private readonly names = new Map<string, string | null>();

  private constructor(
    private readonly storage: Storage,
    private readonly mapping: ProjectMapping,
    private readonly options: { dryRun?: boolean; batchSize?: number },
  ) {
    this.summary = emptySourceSummary(options.dryRun === true);
  }

  /** An importer into `target`; fails early with project_not_found for a mapping to a missing project, storage_unsupported without write batches. */
  static async open(target: ImportTarget, mapping: ProjectMapping, options: { dryRun?: boolean; batchSize?: number } = {}): Promise<SourceImporter> {
    const storage = storageOf(target);
    if (mapping.kind === 'project') await storage.projects.get(mapping.projectId);
    if (!options.dryRun) batchesOf(storage);
    return new SourceImporter(storage, mapping, options);
  }

  /** Buffers a record; returns a promise (to await) only when it flushed a full batch. */
  add(record: SourceRecord): Promise<void> | undefined {
    this.summary.records++;
    this.batch.push(record);
    return this.batch.length >= (this.options.batchSize ?? DEFAULT_SOURCE_BATCH) ? this.flush() : undefined;
  }

  /** Applies what is buffered (one transaction). */
  async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    let counts: Counts;
    try {
      counts = this.options.dryRun ? await planBatch(this.storage, this.mapping, this.planState, batch) : await this.applyBatch(batch);
    } catch (error) {
      if (!abortsImport(error)) throw error;
      // Nothing of this batch is stored; the summary holds exactly the committed batches.
      const s = this.summary;
      const committed = { lines: s.records - batch.length, projects: s.projectsCreated, sessions: s.sessions, sessionsUpdated: s.sessionsUpdated, messages: s.messages, skipped: s.skipped, errorCount: s.errorCount, lastCommittedLine: 0 };
      throw new ImportAbortedError(error as Error & { code: string }, committed);
    }
    this.merge(counts);
  }

  async finish(): Promise<SourceImportSummary> {
    await this.flush();
    return this.summary;
  }

  private merge(c: Counts): void {
    const s = this.summary;
    s.projectsCreated += c.projectsCreated;
    s.sessions += c.sessions;
    s.sessionsUpdated += c.sessionsUpdated;
    s.messages += c.messages;
    s.conversations += c.conversations;
    s.hiddenSessions += c.hiddenSessions;
    s.hiddenMessages += c.hiddenMessages;
    s.skipped += c.skipped;
    for (const [key, count] of c.perProject) {
      const total = this.perProject.get(key);
      if (total) {
        total.sessions += count.sessions;
        total.messages += count.messages;
        total.conversations += count.conversations;
        total.hiddenSessions += count.hiddenSessions;
        total.hiddenMessages += count.hiddenMessages;
      } else this.perProject.set(key, { ...count });
    }
    s.perProject = [...this.perProject.values()].sort((a, b) => b.messages - a.messages || a.project.localeCompare(b.project));
    for (const e of c.errors) {
      s.errorCount++;
      if (s.errors.length < MAX_REPORTED_SOURCE_ERRORS) s.errors.push(e);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Writing: batch programs (each store call a `yield* batchCall(…)`)

  private async applyBatch(batch: SourceRecord[]): Promise<Counts> {
    const batches = batchesOf(this.storage);
    try {
      const counts = emptyCounts();
      await batches.run((tx) => this.applyAll(tx, batch, counts, false), { bulk: true });
      return counts;
    } catch (error) {
      if (lineErrorOf(error, { file: '', line: 0 }) === null) throw error;
    }
    // Some record was refused: redo the batch with a savepoint per record so only that line fails.
    const counts = emptyCounts();
    await batches.run((tx) => this.applyAll(tx, batch, counts, true));
    return counts;
  }

  private *applyAll(tx: BatchStores, batch: SourceRecord[], counts: Counts, isolate: boolean): BatchProgram<void> {
    let i = 0;
    while (i < batch.length) {
      const rec = batch[i]!;
      if (rec.kind === 'message') {
        // Consecutive messages of one session go to the store in one call.
        let j = i + 1;
        while (j < batch.length && batch[j]!.kind === 'message' && (batch[j] as MessageRecord).sessionId === rec.sessionId) j++;
        const group = batch.slice(i, j) as MessageRecord[];
        if (isolate) {
          for (const m of group) yield* this.guard(m, counts, this.appendGroup(tx, [m], counts));
        } else {
          yield* this.appendGroup(tx, group, counts);
        }
        i = j;
        continue;
      }
      if (rec.kind === 'error') counts.errors.push({ file: rec.file, line: rec.line, code: rec.code, message: rec.message });
      else if (isolate) yield* this.guard(rec, counts, this.applySessionRecord(tx, rec, counts));
      else yield* this.applySessionRecord(tx, rec, counts);
      i++;
    }
  }

  /** Runs one record's step in a savepoint; a refusal becomes that line's error, anything else goes through. */
  private *guard(rec: { file: string; line: number }, counts: Counts, step: BatchProgram<void>): BatchProgram<void> {
    try {
      yield* batchIsolate(step);
    } catch (error) {
      const lineError = lineErrorOf(error, rec);
      if (lineError === null) throw error;
      counts.errors.push(lineError);
    }
  }

  private *appendGroup(tx: BatchStores, group: MessageRecord[], counts: Counts): BatchProgram<void> {
    const sessionId = group[0]!.sessionId;
    const result = yield* batchCall(tx.messages.append(sessionId, group.map(toNewMessage)));
    counts.messages += result.inserted;
    counts.skipped += result.skipped;
    // sessions.projectId reads one column: sessions.find would also count the session's messages.
    if (result.inserted > 0) {
      const hidden = yield* this.isHidden(tx, sessionId);
      if (hidden) counts.hiddenMessages += result.inserted;
      const projectId = yield* batchCall(tx.sessions.projectId(sessionId));
      yield* this.count(tx, counts, projectId, { messages: result.inserted, hiddenMessages: hidden ? result.inserted : 0 });
    }
  }

  /** Whether a session is hidden: known for the ones this import created, else read once and remembered. */
  private *isHidden(tx: BatchStores, sessionId: string): BatchProgram<boolean> {
    let known = this.created.get(sessionId);
    if (known === undefined) {
      known = { hidden: (yield* batchCall(tx.sessions.find(sessionId)))?.hidden === true };
      this.created.set(sessionId, known);
      this.preexisting.add(sessionId);
    }
    return known.hidden;
  }

  private *count(tx: BatchStores, counts: Counts, projectKey: string | null, add: Partial<Omit<ProjectCount, 'project' | 'name'>>, name?: string | null): BatchProgram<void> {
    const key = projectKey ?? 'none';
    let entry = counts.perProject.get(key);
    if (!entry) {
      let known = name;
      if (known === undefined && projectKey !== null) {
        known = this.names.get(projectKey);
        if (known === undefined) this.names.set(projectKey, (known = (yield* batchCall(tx.projects.find(projectKey)))?.name ?? null));
      }
      entry = newProjectCount(key, known ?? null);
    }
    entry.sessions += add.sessions ?? 0;
    entry.messages += add.messages ?? 0;
    entry.conversations += add.conversations ?? 0;
    entry.hiddenSessions += add.hiddenSessions ?? 0;
    entry.hiddenMessages += add.hiddenMessages ?? 0;
    counts.perProject.set(key, entry);
  }

  private *projectFor(tx: BatchStores, rec: SessionRecord, counts: Counts | null): BatchProgram<{ projectId?: string | null }> {
    if (rec.lineage === 'compression' || rec.lineage === 'delegation') return {}; // inherit: the store reads the parent's
    if (this.mapping.kind === 'none') return { projectId: null };
    if (this.mapping.kind === 'project') return { projectId: this.mapping.projectId };
    const folder = rec.gitRepoRoot ?? rec.cwd ?? null;
    if (folder === null || folder.trim() === '') return { projectId: null };
    let mapped: { project: { id: string }; created: boolean };
    try {
      mapped = yield* batchCall(tx.projects.forFolder(folder));
    } catch (error) {
      // The home folder, `/` or a relative cwd cannot own a project: such a conversation has none.
      if (error instanceof FolderPathError || (error as { code?: unknown }).code === 'invalid_folder') return { projectId: null };
      throw error;
    }
    if (mapped.created && counts) counts.projectsCreated++;
    return { projectId: mapped.project.id };
  }

  private *applySessionRecord(tx: BatchStores, rec: SessionRecord | SessionUpdateRecord, counts: Counts): BatchProgram<void> {
    const current = yield* batchCall(tx.sessions.find(rec.id));
    if (rec.kind === 'session-update') {
      if (!current) return; // its session was refused (already reported)
      yield* this.updateIfChanged(tx, current, rec, counts);
      return;
    }
    if (current) {
      yield* this.updateIfChanged(tx, current, rec, counts);
      return;
    }
    const project = yield* this.projectFor(tx, rec, counts);
    // A compression continuation without a title of its own keeps its conversation's (as createContinuation does).
    const parent = rec.lineage === 'compression' && rec.parentId !== null ? yield* batchCall(tx.sessions.find(rec.parentId)) : undefined;
    const created = yield* batchCall(
      tx.sessions.create({
        id: rec.id,
        lineage: rec.lineage,
        parentSessionId: rec.parentId,
        source: rec.source,
        title: rec.title ?? rec.defaultTitle ?? parent?.title ?? null,
        cwd: rec.cwd ?? null,
        gitRepoRoot: rec.gitRepoRoot ?? null,
        gitBranch: rec.gitBranch ?? null,
        model: rec.model ?? null,
        ...(rec.startedAt !== undefined ? { startedAt: rec.startedAt } : {}),
        endedAt: rec.endedAt ?? null,
        endReason: rec.endReason ?? null,
        archived: rec.archived ?? false,
        ...(rec.hidden !== undefined ? { hidden: rec.hidden } : {}),
        ...project,
      }),
    );
    // The segment before a compaction ended there (as the store's createContinuation records it).
    if (parent && parent.endReason === null) yield* batchCall(tx.sessions.update(parent.id, { endReason: 'compression', endedAt: parent.endedAt ?? created.startedAt }));
    counts.sessions++;
    this.created.set(created.id, { hidden: created.hidden });
    // Listed as a conversation of its own unless hidden, archived or folded into its parent's.
    const folded = rec.lineage === 'compression' || rec.lineage === 'delegation';
    const conversation = !created.hidden && !created.archived && !folded ? 1 : 0;
    counts.conversations += conversation;
    if (created.hidden) counts.hiddenSessions++;
    yield* this.count(tx, counts, created.projectId, { sessions: 1, conversations: conversation, hiddenSessions: created.hidden ? 1 : 0 });
  }

  private *updateIfChanged(tx: BatchStores, current: Session, rec: Partial<Omit<SessionRecord, 'kind'>> & { id: string }, counts: Counts): BatchProgram<void> {
    const fields: Record<string, unknown> = {};
    const keys = ['title', 'cwd', 'gitRepoRoot', 'gitBranch', 'model', 'endedAt', 'endReason', 'archived', 'hidden'] as const;
    const stored = current as unknown as Record<string, unknown>;
    for (const key of keys) {
      const value = rec[key];
      if (value === undefined) continue;
      // A continuation's parent was ended by the import itself; a later source record without an end does not reopen it.
      if ((key === 'endedAt' || key === 'endReason') && value === null) continue;
      // A source without a title does not clear one: a continuation's inherited title stays (a re-import changes nothing).
      if (key === 'title' && value === null) continue;
      if ((stored[key] ?? null) !== value) fields[key] = value;
    }
    if (Object.keys(fields).length === 0) return;
    yield* batchCall(tx.sessions.update(current.id, fields));
    // A title or model arriving later in the transcript of a session this import created is part of creating it.
    if (!this.created.has(current.id) || this.preexisting.has(current.id)) counts.sessionsUpdated++;
  }
}

