/**
 * Live sync: keeps a profile database in step with the agents' transcript folders while they are
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
 * Checkpoints live in `<home>/profiles/<profile>/sync-state.json` (written atomically, tmp+rename)
 * with the sources and their project mapping, so a restart resumes without duplicates and
 * `recall serve --sync` reuses what `recall sync` was configured with. A checkpoint is saved only
 * after the records before it were committed; a crash in between re-reads lines that the import
 * then skips — never loses any.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type RecallDatabase } from '@recall/schema';
import type { ProjectMapping, SourceImportSummary } from './apply.js';
import { hermesStores, type HermesCursor } from './hermes.js';
import { importHermes, importTranscripts, transcriptFiles, type FileCheckpoint, type TranscriptFormat } from './source-import.js';

export interface SyncSource {
  format: TranscriptFormat | 'hermes';
  path: string;
}

export interface SyncState {
  version: 1;
  sources: SyncSource[];
  mapping: ProjectMapping;
  files: Record<string, FileCheckpoint>;
  hermes: Record<string, HermesCursor>;
}

export function syncStatePath(home: string, profile: string): string {
  return join(home, 'profiles', profile, 'sync-state.json');
}

export function loadSyncState(path: string): SyncState | null {
  if (!existsSync(path)) return null;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as SyncState;
  if (parsed.version !== 1 || !Array.isArray(parsed.sources)) return null;
  return { ...parsed, files: parsed.files ?? {}, hermes: parsed.hermes ?? {} };
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
  errors: number;
  filesRead: number;
}

export interface LiveSyncOptions {
  db: RecallDatabase;
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
    this.state = { version: 1, sources: options.sources, mapping: options.mapping, files: saved?.files ?? {}, hermes: saved?.hermes ?? {} };
  }

  /** One pass over every source (also what the watchers and the timer trigger). */
  async syncOnce(): Promise<SyncPassResult> {
    const total: SyncPassResult = { messages: 0, sessions: 0, errors: 0, filesRead: 0 };
    const summaries: SourceImportSummary[] = [];
    const checkpoints = new Map(Object.entries(this.state.files));
    for (const source of this.options.sources) {
      if (!existsSync(source.path)) continue;
      if (source.format === 'hermes') {
        for (const store of hermesStores(source.path)) {
          if (store.profile !== null) continue; // other Hermes profiles go to their own Recall profiles: `recall import`
          const cursor = this.state.hermes[store.path] ?? { lastMessageId: 0 };
          const summary = await importHermes(this.options.db, store.path, { mapping: this.state.mapping, cursor });
          this.state.hermes[store.path] = cursor;
          summaries.push(summary);
        }
        continue;
      }
      const changed: string[] = [];
      for (const file of transcriptFiles(source.format, source.path)) {
        const stat = statSync(file, { throwIfNoEntry: false });
        if (!stat) continue;
        const cp = checkpoints.get(file);
        if (cp && (stat.ino !== cp.ino || stat.size < cp.offset)) {
          checkpoints.delete(file); // rotated or rewritten: read it again from the start
        } else if (cp && stat.size === cp.offset) continue;
        changed.push(file);
      }
      if (changed.length === 0) continue;
      const summary = await importTranscripts(this.options.db, source.format, changed, { mapping: this.state.mapping, checkpoints, partialLast: 'hold' });
      total.filesRead += changed.length;
      summaries.push(summary);
    }
    this.state.files = Object.fromEntries(checkpoints);
    saveSyncState(this.options.statePath, this.state);
    for (const s of summaries) {
      total.messages += s.messages;
      total.sessions += s.sessions;
      total.errors += s.errorCount;
    }
    if (total.messages > 0 || total.sessions > 0 || total.errors > 0) this.options.onPass?.(total, summaries);
    return total;
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
