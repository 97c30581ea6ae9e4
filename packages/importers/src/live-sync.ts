/**
 * Live sync: keeps a storage (a profile database, or a team database on PostgreSQL) in step with the agents' transcript folders while they are
 * being written (`recall sync`, `recall serve --sync`). Each source (claude-code / codex folder, or
 * a Hermes state.db) is watched with fs.watch (recursive) and also polled on an interval — the
 * fallback for file systems where watching misses events — and every change triggers one pass:
 *
 * - a transcript file is read from its persisted checkpoint (byte offset, line number and the
 *   reader's per-file state); an unterminated last line is held back until it is complete;
 * - a file that shrank or got another inode (rotated, rewritten) is read again from the start —
 *   idempotent import makes that safe (what exists is skipped);
 * - a Hermes store is read from its last imported message id.
 *
 * A refused line (`line_too_long`, `invalid_json`, a record the store refuses) is reported and
 * passed: the checkpoint moves beyond it, so one bad transcript never wedges a source. Each file is
 * imported on its own, so a file whose import fails (an I/O error) keeps its checkpoint — it is
 * retried next pass — while every other file carries on. Both kinds are kept in the state's
 * `errors` (the most recent MAX_SYNC_ERRORS, newest last) and in each pass's result.
 *
 * Checkpoints live in `<home>/profiles/<profile>/sync-state.json` (written atomically, tmp+rename)
 * with the sources and their project mapping, so a restart resumes without duplicates and
 * `recall serve --sync` reuses what `recall sync` was configured with. A checkpoint is saved only
 * after the records before it were committed; a crash in between re-reads lines that the import
 * then skips — never loses any.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@recall/schema';
import type { SourceImportSummary } from './apply.js';
import type { ProjectMapping, SourceLineError } from './counts.js';
import { hermesStores, type HermesCursor } from './hermes.js';
import { importHermes, importTranscripts, transcriptFiles, type FileCheckpoint, type TranscriptFormat } from './source-import.js';
import type { ImportTarget } from './target.js';

export interface SyncSource {
  format: TranscriptFormat | 'hermes';
  path: string;
}

/** At most this many sync errors are kept in the saved state (the most recent ones). */
export const MAX_SYNC_ERRORS = 100;

/** A line error or a failed file of a sync pass, as saved in the state: where, what, and when (ms). */
export interface SyncError extends SourceLineError {
  /** When it was last seen (ms since the epoch). */
  at: number;
}

export interface SyncState {
  version: 1;
  sources: SyncSource[];
  mapping: ProjectMapping;
  files: Record<string, FileCheckpoint>;
  hermes: Record<string, HermesCursor>;
  /** Recent line errors and failed files, newest last (at most MAX_SYNC_ERRORS). */
  errors: SyncError[];
}

export function syncStatePath(home: string, profile: string): string {
  return join(home, 'profiles', profile, 'sync-state.json');
}

export function loadSyncState(path: string): SyncState | null {
  if (!existsSync(path)) return null;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as SyncState;
  if (parsed.version !== 1 || !Array.isArray(parsed.sources)) return null;
  return { ...parsed, files: parsed.files ?? {}, hermes: parsed.hermes ?? {}, errors: Array.isArray(parsed.errors) ? parsed.errors : [] };
}

function saveSyncState(path: string, state: SyncState): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = `${path}.${process.pid}.tmp`;
  // Private like the database beside it: the checkpoints name the user's transcript files.
  writeFileSync(tmp, JSON.stringify(state), { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, path);
}

export interface SyncPassResult {
  messages: number;
  sessions: number;
  /** Line errors and failed files of this pass. */
  errors: number;
  filesRead: number;
  /** This pass's errors (at most MAX_SYNC_ERRORS): refused lines, passed, and failed files, retried next pass. */
  errorList: SourceLineError[];
}

export interface LiveSyncOptions {
  /** Where the records go: a storage (SQLite or PostgreSQL) or an open profile database. */
  db: ImportTarget;
  statePath: string;
  sources: SyncSource[];
  mapping: ProjectMapping;
  /** Polling interval (the fallback when watch events are missed). Default 2000 ms. */
  intervalMs?: number;
  /** Called after every pass that imported or refused something. */
  onPass?: (result: SyncPassResult, summaries: SourceImportSummary[]) => void;
  onError?: (error: unknown) => void;
}

export class LiveSync {
  private readonly state: SyncState;
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly options: LiveSyncOptions) {
    const saved = loadSyncState(options.statePath);
    // Checkpoints survive a change of sources; the mapping applies to sessions created from now on.
    this.state = { version: 1, sources: options.sources, mapping: options.mapping, files: saved?.files ?? {}, hermes: saved?.hermes ?? {}, errors: saved?.errors ?? [] };
  }

  /** One pass over every source (also what the watchers and the timer trigger). */
  async syncOnce(): Promise<SyncPassResult> {
    const total: SyncPassResult = { messages: 0, sessions: 0, errors: 0, filesRead: 0, errorList: [] };
    const summaries: SourceImportSummary[] = [];
    const checkpoints = new Map(Object.entries(this.state.files));
    const failed = (path: string, error: unknown): void => {
      const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'sync_failed';
      total.errors++;
      total.errorList.push({ file: path, line: 0, code, message: `Import failed, retried next pass: ${(error as Error).message ?? String(error)}`.slice(0, 500) });
      this.options.onError?.(error);
    };
    for (const source of this.options.sources) {
      if (!existsSync(source.path)) continue;
      if (source.format === 'hermes') {
        for (const store of hermesStores(source.path)) {
          if (store.profile !== null) continue; // other Hermes profiles go to their own Recall profiles: `recall import`
          const cursor = this.state.hermes[store.path] ?? { lastMessageId: 0 };
          try {
            summaries.push(await importHermes(this.options.db, store.path, { mapping: this.state.mapping, cursor }));
            this.state.hermes[store.path] = cursor;
          } catch (error) {
            failed(store.path, error);
          }
        }
        continue;
      }
      for (const file of transcriptFiles(source.format, source.path)) {
        const stat = statSync(file, { throwIfNoEntry: false });
        if (!stat) continue;
        const cp = checkpoints.get(file);
        if (cp && (stat.ino !== cp.ino || stat.size < cp.offset)) {
          checkpoints.delete(file); // rotated or rewritten: read it again from the start
        } else if (cp && stat.size === cp.offset) continue;
        // One file at a time: a file that fails keeps its checkpoint (retried next pass), the others go on.
        total.filesRead++;
        try {
          summaries.push(await importTranscripts(this.options.db, source.format, [file], { mapping: this.state.mapping, checkpoints, partialLast: 'hold' }));
        } catch (error) {
          failed(file, error);
        }
      }
    }
    for (const s of summaries) {
      total.messages += s.messages;
      total.sessions += s.sessions;
      total.errors += s.errorCount;
      total.errorList.push(...s.errors);
    }
    total.errorList = total.errorList.slice(0, MAX_SYNC_ERRORS);
    this.state.files = Object.fromEntries(checkpoints);
    this.recordErrors(total.errorList);
    saveSyncState(this.options.statePath, this.state);
    if (total.messages > 0 || total.sessions > 0 || total.errors > 0) this.options.onPass?.(total, summaries);
    return total;
  }

  /** Adds a pass's errors to the saved ones: one entry per file, line and code (a retried failure is refreshed, not repeated). */
  private recordErrors(errors: readonly SourceLineError[]): void {
    if (errors.length === 0) return;
    const at = Date.now();
    const key = (e: SourceLineError) => `${e.file}\n${e.line}\n${e.code}`;
    const fresh = new Set(errors.map(key));
    const kept = this.state.errors.filter((e) => !fresh.has(key(e)));
    this.state.errors = [...kept, ...errors.map((e) => ({ ...e, at }))].slice(-MAX_SYNC_ERRORS);
  }

  /** Runs a first pass, then watches and polls until stop(). */
  async start(): Promise<void> {
    await this.trigger();
    for (const source of this.options.sources) {
      if (!existsSync(source.path)) continue;
      try {
        const target = source.format === 'hermes' && statSync(source.path).isFile() ? dirname(source.path) : source.path;
        const watcher = watch(target, { recursive: true, persistent: false }, () => this.schedule());
        watcher.on('error', () => watcher.close()); // polling carries on
        this.watchers.push(watcher);
      } catch {
        // No recursive watching here: the interval alone keeps the source in step.
      }
    }
    const interval = Math.max(100, this.options.intervalMs ?? 2000);
    this.timer = setInterval(() => void this.trigger(), interval);
  }

  private schedule(): void {
    if (this.stopped || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.trigger();
    }, 150);
  }

  /** Starts a pass, or queues one more if a pass is running (changes made during it are not missed). */
  private trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.syncOnce();
        } while (this.again && !this.stopped);
      } catch (error) {
        this.options.onError?.(error);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops watching and polling; resolves after a running pass finished (its checkpoint saved). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.watchers.splice(0)) w.close();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.timer = null;
    this.debounce = null;
    await this.running;
  }
}
