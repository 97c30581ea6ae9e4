/**
 * One import run of a source format over a path: finds the transcripts (claude-code, codex) or
 * state databases (hermes) under it, streams their records through a SourceImporter into one
 * storage (SQLite or PostgreSQL, through the ports), and reports progress by bytes (JSONL) or by rows (Hermes). Shared by the CLI's
 * `recall import --from …` and by live sync (which passes per-file offsets and states through
 * `files`/`resume`). Yields to the event loop after every batch so a gateway stays responsive.
 */
import { statSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { SourceImporter, type SourceImportSummary } from './apply.js';
import type { ProjectMapping } from './counts.js';
import { claudeCodeFiles, newClaudeCodeState, readClaudeCodeFile, type ClaudeCodeFileState } from './claude-code.js';
import { codexFiles, newCodexState, readCodexFile, type CodexFileState } from './codex.js';
import { readHermesStore, type HermesCursor } from './hermes.js';
import type { SourceRecord } from './records.js';
import type { ImportTarget } from './target.js';

export type TranscriptFormat = 'claude-code' | 'codex';

export interface ImportProgressInfo {
  file: string;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  summary: Readonly<SourceImportSummary>;
}

export interface SourceRunOptions {
  mapping: ProjectMapping;
  dryRun?: boolean;
  batchSize?: number;
  onProgress?: (progress: ImportProgressInfo) => void;
}

/** Where a transcript file stands: bytes and lines consumed, and the reader's state there. */
export interface FileCheckpoint {
  offset: number;
  line: number;
  /** Size and inode when last read: a smaller size or another inode means the file was replaced. */
  size: number;
  ino: number;
  state: ClaudeCodeFileState | CodexFileState;
}

export function transcriptFiles(format: TranscriptFormat, path: string): string[] {
  return format === 'claude-code' ? claudeCodeFiles(path) : codexFiles(path);
}

export function newFileState(format: TranscriptFormat): ClaudeCodeFileState | CodexFileState {
  return format === 'claude-code' ? newClaudeCodeState() : newCodexState();
}

function readFile(format: TranscriptFormat, file: string, checkpoint: FileCheckpoint, partialLast: 'yield' | 'hold'): AsyncGenerator<SourceRecord[]> {
  const onLine = (endOffset: number, line: number) => {
    checkpoint.offset = endOffset;
    checkpoint.line = line + 1;
  };
  const lineOptions = { fromOffset: checkpoint.offset, startLine: checkpoint.line, partialLast };
  return format === 'claude-code'
    ? readClaudeCodeFile(file, checkpoint.state as ClaudeCodeFileState, lineOptions, onLine)
    : readCodexFile(file, checkpoint.state as CodexFileState, lineOptions, onLine);
}

/**
 * Imports transcript files. `checkpoints` (live sync) gives each file's resume point and receives
 * the new one; without it every file is read from the start (a one-off import: idempotent anyway).
 * `partialLast: 'hold'` leaves an unterminated last line for next time.
 */
export async function importTranscripts(
  db: ImportTarget,
  format: TranscriptFormat,
  files: readonly string[],
  options: SourceRunOptions & { checkpoints?: Map<string, FileCheckpoint>; partialLast?: 'yield' | 'hold' } = { mapping: { kind: 'none' } },
): Promise<SourceImportSummary> {
  const importer = await SourceImporter.open(db, options.mapping, { dryRun: options.dryRun ?? false, ...(options.batchSize ? { batchSize: options.batchSize } : {}) });
  const sizes = files.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesBefore = 0;
  let filesDone = 0;
  const batch = options.batchSize ?? 2000;
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) continue;
    // A copy: the reader moves it line by line, and it must reach `checkpoints` only once the file's
    // records are committed (an import that fails midway leaves the old checkpoint, never skips lines).
    const saved = options.checkpoints?.get(file);
    const checkpoint: FileCheckpoint = saved ? structuredClone(saved) : { offset: 0, line: 1, size: 0, ino: stat.ino, state: newFileState(format) };
    let n = 0;
    for await (const records of readFile(format, file, checkpoint, options.partialLast ?? 'yield')) {
      for (const record of records) {
        const flushing = importer.add(record);
        if (flushing) await flushing;
      }
      n += records.length;
      if (n >= batch) {
        n = 0;
        options.onProgress?.({ file, filesDone, filesTotal: files.length, bytesDone: bytesBefore + checkpoint.offset, bytesTotal, summary: importer.summary });
        await yieldToEventLoop();
      }
    }
    // The file's records are committed before its checkpoint moves (a crash re-reads, never skips).
    await importer.flush();
    checkpoint.size = stat.size;
    checkpoint.ino = stat.ino;
    options.checkpoints?.set(file, checkpoint);
    bytesBefore += sizes[i]!;
    filesDone++;
    importer.summary.files++;
    options.onProgress?.({ file, filesDone, filesTotal: files.length, bytesDone: bytesBefore, bytesTotal, summary: importer.summary });
  }
  return await importer.finish();
}

/** Imports one Hermes state.db (messages after `cursor`; the cursor advances to the last one read). */
export async function importHermes(db: ImportTarget, path: string, options: SourceRunOptions & { cursor?: HermesCursor } = { mapping: { kind: 'none' } }): Promise<SourceImportSummary> {
  const importer = await SourceImporter.open(db, options.mapping, { dryRun: options.dryRun ?? false, ...(options.batchSize ? { batchSize: options.batchSize } : {}) });
  const cursor = options.cursor ?? { lastMessageId: 0 };
  const committed = { lastMessageId: cursor.lastMessageId };
  let n = 0;
  for await (const record of readHermesStore(path, committed)) {
    const flushing = importer.add(record);
    if (flushing) await flushing;
    if (++n % (options.batchSize ?? 2000) === 0) {
      options.onProgress?.({ file: path, filesDone: 0, filesTotal: 1, bytesDone: n, bytesTotal: 0, summary: importer.summary });
      await yieldToEventLoop();
    }
  }
  await importer.finish();
  cursor.lastMessageId = committed.lastMessageId;
  importer.summary.files++;
  options.onProgress?.({ file: path, filesDone: 1, filesTotal: 1, bytesDone: n, bytesTotal: 0, summary: importer.summary });
  return importer.summary;
}
