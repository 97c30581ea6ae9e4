/**
 * Writes normalised source records (records.ts) into a profile database: the one writer behind
 * `recall import --from …` and live sync. It owns the project mapping (an explicit project, one
 * project per folder through the store's projectForFolder — none for a folder it refuses, such as the
 * home folder or `/` — or none), idempotency (sessions by id,
 * messages by session + external id — a re-run or a grown transcript writes only what is new),
 * batching, the per-line error report and the dry run.
 *
 * Batches: records are applied N at a time in one BEGIN IMMEDIATE transaction (bulkWrite: no
 * savepoint per call, which keeps FTS fast). If the store refuses any record of a batch, the whole
 * batch is rolled back and re-applied record by record with a savepoint each, so the refused line
 * is reported by file and line and every other line is still imported. A process killed mid-import
 * loses at most the open transaction; the next run re-reads and skips what was committed.
 *
 * Ownership rules: a new root (or branch/reset) session gets the mapping's project; compression and
 * delegation children always share their parent's (the store enforces it); an existing session's
 * project is never touched — the user may have moved it since.
 */
import type { Session } from '@recall/rpc-contract';
import { RecallSchemaError, type RecallDatabase } from '@recall/schema';
import {
  appendMessages,
  createSession,
  findProjectByFolder,
  findSession,
  FolderPathError,
  getProject,
  normalizeFolderPath,
  projectForFolder,
  sessionProjectId,
  SessionAlreadyCompressedError,
  StoreError,
  updateSession,
  bulkWrite,
  writeTransaction,
} from '@recall/store';
import { toNewMessage, type MessageRecord, type SessionRecord, type SessionUpdateRecord, type SourceRecord } from './records.js';
import { abortsImport, ImportAbortedError } from './errors.js';

export type ProjectMapping = { kind: 'none' } | { kind: 'project'; projectId: string } | { kind: 'per-folder' };

export interface SourceLineError {
  file: string;
  line: number;
  code: string;
  message: string;
}

export interface ProjectCount {
  /** Project id, `new:<folder>` for a project a dry run would create, or `none`. */
  project: string;
  name: string | null;
  /** Every new session row (compression continuations and hidden subagent sessions included). */
  sessions: number;
  messages: number;
  /**
   * New conversations as the project's list counts them (`recall projects`, the sidebar): new
   * sessions that are neither hidden, archived, nor a compression/delegation child of another.
   */
  conversations: number;
  /** New hidden sessions (subagent work): imported and readable, but never listed or searched. */
  hiddenSessions: number;
  /** New messages of hidden sessions (included in `messages`). */
  hiddenMessages: number;
}

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

function lineErrorOf(error: unknown, rec: { file: string; line: number }): SourceLineError | null {
  if ((error instanceof StoreError || error instanceof RecallSchemaError) && !abortsImport(error)) {
    return { file: rec.file, line: rec.line, code: (error as Error & { code: string }).code, message: error.message.slice(0, 500) };
  }
  return null;
}

interface Counts {
  projectsCreated: number;
  sessions: number;
  sessionsUpdated: number;
  messages: number;
  conversations: number;
  hiddenSessions: number;
  hiddenMessages: number;
  skipped: number;
  perProject: Map<string, ProjectCount>;
  errors: SourceLineError[];
}

function emptyCounts(): Counts {
  return { projectsCreated: 0, sessions: 0, sessionsUpdated: 0, messages: 0, conversations: 0, hiddenSessions: 0, hiddenMessages: 0, skipped: 0, perProject: new Map(), errors: [] };
}

/**
 * Applies records to one database. Feed it with `add()` (it flushes full batches itself) and call
 * `finish()` at the end; `summary` is current after every flush.
 */
export class SourceImporter {
  readonly summary: SourceImportSummary;
  private batch: SourceRecord[] = [];
  /** Dry run: sessions seen so far (id → project key), since nothing is written. */
  private readonly planned = new Map<string, string>();
  /** Dry run: parent id → the compression child this run would create (the store refuses a second). */
  private readonly plannedContinuations = new Map<string, string>();
  private readonly perProject = new Map<string, ProjectCount>();
  /** Sessions this import created (a later record filling in their title or model is not an "update"), and which are hidden. */
  private readonly created = new Map<string, { hidden: boolean }>();
  /** Sessions in `created` only as a cache of their hidden flag: they existed before this import. */
  private readonly preexisting = new Set<string>();
  /** Dry run: sessions seen so far that are (or would be created) hidden — subagent work. */
  private readonly plannedHidden = new Set<string>();

  constructor(
    private readonly db: RecallDatabase,
    private readonly mapping: ProjectMapping,
    private readonly options: { dryRun?: boolean; batchSize?: number } = {},
  ) {
    this.summary = emptySourceSummary(options.dryRun === true);
    if (mapping.kind === 'project') getProject(db, mapping.projectId); // fails early: project_not_found
  }

  add(record: SourceRecord): void {
    this.summary.records++;
    this.batch.push(record);
    if (this.batch.length >= (this.options.batchSize ?? DEFAULT_SOURCE_BATCH)) this.flush();
  }

  /** Applies what is buffered (one transaction). */
  flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    let counts: Counts;
    try {
      counts = this.options.dryRun ? this.plan(batch) : this.applyBatch(batch);
    } catch (error) {
      if (!abortsImport(error)) throw error;
      // Nothing of this batch is stored; the summary holds exactly the committed batches.
      const s = this.summary;
      const committed = { lines: s.records - batch.length, projects: s.projectsCreated, sessions: s.sessions, sessionsUpdated: s.sessionsUpdated, messages: s.messages, skipped: s.skipped, errorCount: s.errorCount, lastCommittedLine: 0 };
      throw new ImportAbortedError(error as Error & { code: string }, committed);
    }
    this.merge(counts);
  }

  finish(): SourceImportSummary {
    this.flush();
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
  // Writing

  private applyBatch(batch: SourceRecord[]): Counts {
    try {
      const counts = emptyCounts();
      bulkWrite(this.db, () => this.applyAll(batch, counts, false));
      return counts;
    } catch (error) {
      if (lineErrorOf(error, { file: '', line: 0 }) === null) throw error;
    }
    // Some record was refused: redo the batch with a savepoint per record so only that line fails.
    const counts = emptyCounts();
    writeTransaction(this.db, () => this.applyAll(batch, counts, true));
    return counts;
  }

  private applyAll(batch: SourceRecord[], counts: Counts, isolate: boolean): void {
    let i = 0;
    while (i < batch.length) {
      const rec = batch[i]!;
      if (rec.kind === 'message') {
        // Consecutive messages of one session go to the store in one call.
        let j = i + 1;
        while (j < batch.length && batch[j]!.kind === 'message' && (batch[j] as MessageRecord).sessionId === rec.sessionId) j++;
        const group = batch.slice(i, j) as MessageRecord[];
        if (isolate) {
          for (const m of group) this.guard(m, counts, () => this.appendGroup([m], counts));
        } else {
          this.appendGroup(group, counts);
        }
        i = j;
        continue;
      }
      if (rec.kind === 'error') counts.errors.push({ file: rec.file, line: rec.line, code: rec.code, message: rec.message });
      else if (isolate) this.guard(rec, counts, () => this.applySessionRecord(rec, counts));
      else this.applySessionRecord(rec, counts);
      i++;
    }
  }

  private guard(rec: { file: string; line: number }, counts: Counts, fn: () => void): void {
    try {
      writeTransaction(this.db, fn);
    } catch (error) {
      const lineError = lineErrorOf(error, rec);
      if (lineError === null) throw error;
      counts.errors.push(lineError);
    }
  }

  private appendGroup(group: MessageRecord[], counts: Counts): void {
    const sessionId = group[0]!.sessionId;
    const result = appendMessages(this.db, sessionId, group.map(toNewMessage));
    counts.messages += result.inserted;
    counts.skipped += result.skipped;
    // sessionProjectId reads one column: findSession would also count the session's messages.
    if (result.inserted > 0) {
      const hidden = this.isHidden(sessionId);
      if (hidden) counts.hiddenMessages += result.inserted;
      this.count(counts, sessionProjectId(this.db, sessionId), { messages: result.inserted, hiddenMessages: hidden ? result.inserted : 0 });
    }
  }

  /** Whether a session is hidden: known for the ones this import created, else read once and remembered. */
  private isHidden(sessionId: string): boolean {
    let known = this.created.get(sessionId);
    if (known === undefined) {
      known = { hidden: findSession(this.db, sessionId)?.hidden === true };
      this.created.set(sessionId, known);
      this.preexisting.add(sessionId);
    }
    return known.hidden;
  }

  private count(counts: Counts, projectKey: string | null, add: Partial<Omit<ProjectCount, 'project' | 'name'>>, name?: string | null): void {
    const key = projectKey ?? 'none';
    const entry = counts.perProject.get(key) ?? newProjectCount(key, name ?? (projectKey === null ? null : (findProjectName(this.db, projectKey) ?? null)));
    entry.sessions += add.sessions ?? 0;
    entry.messages += add.messages ?? 0;
    entry.conversations += add.conversations ?? 0;
    entry.hiddenSessions += add.hiddenSessions ?? 0;
    entry.hiddenMessages += add.hiddenMessages ?? 0;
    counts.perProject.set(key, entry);
  }

  private projectFor(rec: SessionRecord, counts: Counts | null): { projectId?: string | null } {
    if (rec.lineage === 'compression' || rec.lineage === 'delegation') return {}; // inherit: the store reads the parent's
    if (this.mapping.kind === 'none') return { projectId: null };
    if (this.mapping.kind === 'project') return { projectId: this.mapping.projectId };
    const folder = rec.gitRepoRoot ?? rec.cwd ?? null;
    if (folder === null || folder.trim() === '') return { projectId: null };
    let mapped: ReturnType<typeof projectForFolder>;
    try {
      mapped = projectForFolder(this.db, folder);
    } catch (error) {
      // The home folder, `/` or a relative cwd cannot own a project: such a conversation has none.
      if (error instanceof FolderPathError) return { projectId: null };
      throw error;
    }
    if (mapped.created && counts) counts.projectsCreated++;
    return { projectId: mapped.project.id };
  }

  private applySessionRecord(rec: SessionRecord | SessionUpdateRecord, counts: Counts): void {
    const current = findSession(this.db, rec.id);
    if (rec.kind === 'session-update') {
      if (!current) return; // its session was refused (already reported)
      this.updateIfChanged(current, rec, counts);
      return;
    }
    if (current) {
      this.updateIfChanged(current, rec, counts);
      return;
    }
    const project = this.projectFor(rec, counts);
    // A compression continuation without a title of its own keeps its conversation's (as createContinuation does).
    const inherited = rec.lineage === 'compression' && rec.parentId !== null ? (findSession(this.db, rec.parentId)?.title ?? null) : null;
    const created = createSession(this.db, {
      id: rec.id,
      lineage: rec.lineage,
      parentSessionId: rec.parentId,
      source: rec.source,
      title: rec.title ?? rec.defaultTitle ?? inherited,
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
    });
    if (rec.lineage === 'compression' && rec.parentId !== null) {
      // The segment before a compaction ended there (as the store's createContinuation records it).
      const parent = findSession(this.db, rec.parentId);
      if (parent && parent.endReason === null) updateSession(this.db, parent.id, { endReason: 'compression', endedAt: parent.endedAt ?? created.startedAt });
    }
    counts.sessions++;
    this.created.set(created.id, { hidden: created.hidden });
    // Listed as a conversation of its own unless hidden, archived or folded into its parent's.
    const folded = rec.lineage === 'compression' || rec.lineage === 'delegation';
    const conversation = !created.hidden && !created.archived && !folded ? 1 : 0;
    counts.conversations += conversation;
    if (created.hidden) counts.hiddenSessions++;
    this.count(counts, created.projectId, { sessions: 1, conversations: conversation, hiddenSessions: created.hidden ? 1 : 0 });
  }

  private updateIfChanged(current: Session, rec: Partial<Omit<SessionRecord, 'kind'>> & { id: string }, counts: Counts): void {
    const fields: Record<string, unknown> = {};
    const keys = ['title', 'cwd', 'gitRepoRoot', 'gitBranch', 'model', 'endedAt', 'endReason', 'archived', 'hidden'] as const;
    const stored = current as unknown as Record<string, unknown>;
    for (const key of keys) {
      const value = rec[key];
      if (value === undefined) continue;
      // A continuation's parent was ended by the import itself; a later source record without an end does not reopen it.
      if ((key === 'endedAt' || key === 'endReason') && value === null) continue;
      if ((stored[key] ?? null) !== value) fields[key] = value;
    }
    if (Object.keys(fields).length === 0) return;
    updateSession(this.db, current.id, fields);
    // A title or model arriving later in the transcript of a session this import created is part of creating it.
    if (!this.created.has(current.id) || this.preexisting.has(current.id)) counts.sessionsUpdated++;
  }

  // -------------------------------------------------------------------------------------------
  // Dry run: the same decisions, read-only

  private plan(batch: SourceRecord[]): Counts {
    const counts = emptyCounts();
    const hasMessage = this.db.raw.prepare('select 1 from messages where session_id = ? and external_id = ?');
    for (const rec of batch) {
      if (rec.kind === 'error') {
        counts.errors.push({ file: rec.file, line: rec.line, code: rec.code, message: rec.message });
        continue;
      }
      if (rec.kind === 'session-update') continue;
      if (rec.kind === 'session') {
        if (this.planned.has(rec.id)) continue;
        const existing = findSession(this.db, rec.id);
        if (existing) {
          this.planned.set(rec.id, existing.projectId ?? 'none');
          if (existing.hidden) this.plannedHidden.add(rec.id);
          continue;
        }
        if (rec.lineage === 'compression' && rec.parentId !== null) {
          const continuation = this.plannedContinuations.get(rec.parentId) ?? existingContinuation(this.db, rec.parentId);
          if (continuation !== undefined) {
            counts.errors.push({ file: rec.file, line: rec.line, code: 'session_already_compressed', message: alreadyCompressedMessage(rec.parentId, continuation) });
            continue;
          }
          this.plannedContinuations.set(rec.parentId, rec.id);
        }
        const key = this.plannedProject(rec, counts);
        this.planned.set(rec.id, key);
        counts.sessions++;
        // The store's rules: delegation children are hidden unless said otherwise; folded children are not conversations of their own.
        const hidden = rec.hidden ?? rec.lineage === 'delegation';
        const conversation = !hidden && rec.archived !== true && rec.lineage !== 'compression' && rec.lineage !== 'delegation';
        if (hidden) {
          this.plannedHidden.add(rec.id);
          counts.hiddenSessions++;
        }
        if (conversation) counts.conversations++;
        const entry = counts.perProject.get(key) ?? newProjectCount(key, this.plannedName(key));
        entry.sessions++;
        if (hidden) entry.hiddenSessions++;
        if (conversation) entry.conversations++;
        counts.perProject.set(key, entry);
        continue;
      }
      const key = this.planned.get(rec.sessionId);
      if (key === undefined) {
        counts.errors.push({ file: rec.file, line: rec.line, code: 'session_not_found', message: `No session ${JSON.stringify(rec.sessionId)} for this message.` });
        continue;
      }
      if (hasMessage.get(rec.sessionId, rec.externalId) !== undefined) {
        counts.skipped++;
        continue;
      }
      counts.messages++;
      const hidden = this.plannedHidden.has(rec.sessionId);
      if (hidden) counts.hiddenMessages++;
      const entry = counts.perProject.get(key) ?? newProjectCount(key, this.plannedName(key));
      entry.messages++;
      if (hidden) entry.hiddenMessages++;
      counts.perProject.set(key, entry);
    }
    return counts;
  }

  private plannedProject(rec: SessionRecord, counts: Counts): string {
    if ((rec.lineage === 'compression' || rec.lineage === 'delegation') && rec.parentId !== null) {
      return this.planned.get(rec.parentId) ?? findSession(this.db, rec.parentId)?.projectId ?? 'none';
    }
    if (this.mapping.kind === 'none') return 'none';
    if (this.mapping.kind === 'project') return this.mapping.projectId;
    const folder = rec.gitRepoRoot ?? rec.cwd ?? null;
    if (folder === null || folder.trim() === '') return 'none';
    let normalized: string;
    try {
      normalized = normalizeFolderPath(folder);
    } catch {
      return 'none';
    }
    const existing = findProjectByFolder(this.db, normalized);
    if (existing) return existing.id;
    const key = `new:${normalized}`;
    if (!this.perProject.has(key) && !counts.perProject.has(key)) counts.projectsCreated++;
    return key;
  }

  private plannedName(key: string): string | null {
    if (key === 'none') return null;
    if (key.startsWith('new:')) return key.slice(4).split(/[\\/]/).filter(Boolean).pop() ?? key.slice(4);
    return findProjectName(this.db, key) ?? null;
  }
}

/** The compression child `parentId` already has, as the store's createSession would find it. */
function existingContinuation(db: RecallDatabase, parentId: string): string | undefined {
  return db.raw.prepare("select id from sessions where parent_session_id = ? and lineage = 'compression' order by started_at, id limit 1").pluck().get(parentId) as string | undefined;
}

/** The store's SessionAlreadyCompressedError message, so a dry run reports what the real run will. */
function alreadyCompressedMessage(parentId: string, continuationId: string): string {
  return new SessionAlreadyCompressedError(parentId, continuationId).message;
}

function newProjectCount(project: string, name: string | null): ProjectCount {
  return { project, name, sessions: 0, messages: 0, conversations: 0, hiddenSessions: 0, hiddenMessages: 0 };
}

function findProjectName(db: RecallDatabase, projectId: string): string | undefined {
  try {
    return getProject(db, projectId).name;
  } catch {
    return undefined;
  }
}
