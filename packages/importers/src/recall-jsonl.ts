/**
 * The `recall-jsonl` v1 importer (DESIGN §8): one JSON object per line, `kind` = `project`,
 * `session` or `message`. This module owns the line schemas (zod, snake_case as in the file), the
 * mapping onto the store's write functions, idempotency on re-import and the batching. Each line
 * is validated on its own; a malformed or unknown line is reported by 1-based line number with a
 * stable code and skipped, and every valid line is imported. Lines are applied in batches, each one
 * write transaction of the storage ports (WriteBatches; SQLite or PostgreSQL), so a crash (or a disk
 * error, which aborts the import) never leaves half a batch; a line that the store refuses rolls
 * back only its own savepoint inside the batch (every store call in a non-bulk batch has one).
 *
 * Idempotency: projects by id (an existing project is left as it is), sessions by id (an existing
 * session is updated only where the file's fields differ, and its project is never touched — the
 * user may have moved it since; `recall mv` is the way to move), messages by `external_id` within
 * their session (the store's own rule). Re-importing the same file therefore writes nothing.
 *
 * Line error codes (stable): `invalid_json` (not JSON / not an object), `unknown_kind`,
 * `invalid_line` (fields fail the schema), `line_too_long` (over MAX_LINE_BYTES of UTF-8: a file's
 * line that long is skipped as it streams past, never read into memory), plus the store's own codes when it
 * refuses a valid-looking line (`session_not_found` for a message or child whose session is not
 * imported, `project_not_found`, `project_archived`, `invalid_lineage`, `session_already_compressed` for a
 * second compression child of one session, `folder_in_use`,
 * `invalid_input`, …).
 */
import { statSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { MAX_MESSAGE_CHARS, type ImportSummary, type Session } from '@recall/rpc-contract';
import { RecallSchemaError } from '@recall/schema';
import { batchCall, type BatchProgram, type BatchStores, type Storage } from '@recall/storage-ports';
import { StoreError } from '@recall/store';
import { z } from 'zod';
import { lineTooLongMessage, MAX_LINE_BYTES, readLineBatches } from './line-reader.js';
import { toNewMessage, type MessageFields } from './records.js';
import { abortsImport, ImportAbortedError } from './errors.js';
import { batchesOf, storageOf, type ImportTarget } from './target.js';

/** Lines applied per write transaction: large enough to amortise the commit, small enough to keep the write lock short. */
export const DEFAULT_IMPORT_BATCH_LINES = 500;
/** At most this many line errors are kept in the summary; `errorCount` has the full number. */
export const MAX_REPORTED_ERRORS = 1000;

// ---------------------------------------------------------------------------------------------
// Line schemas

const timestampSchema = z
  .union([
    z.iso.datetime({ offset: true }).describe('ISO-8601 date-time with Z or an offset'),
    z.iso.date().describe('ISO-8601 calendar date (midnight UTC)'),
    z.number().int().nonnegative().max(8.64e15).describe('milliseconds since the epoch'),
  ], { error: 'expected an ISO-8601 date-time with Z or an offset ("2024-03-01T10:00:00Z"), a date ("2024-03-01") or integer milliseconds since the epoch' })
  .transform((v) => (typeof v === 'number' ? v : Date.parse(v)))
  .pipe(z.number().int().nonnegative().describe('parsed timestamp (ms)'))
  .describe('a timestamp: ISO-8601 string or epoch milliseconds');

const projectIdSchema = z
  .string()
  .regex(/^p_[A-Za-z0-9_-]{1,64}$/, 'project ids look like p_… (letters, digits, _ and -)')
  .describe('stable project id, e.g. p_work');
const sessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'session ids are 1-128 characters of letters, digits, . _ : -')
  .describe('stable session id');
const optionalText = (max: number, what: string) => z.string().max(max).nullish().describe(what);

export const projectLineSchema = z
  .strictObject({
    kind: z.literal('project').describe('record type'),
    id: projectIdSchema,
    name: z.string().min(1).max(120).describe('display name'),
    description: optionalText(2000, 'free text'),
    color: optionalText(30, '#rgb[a] hex or a colour name'),
    icon: optionalText(64, 'icon name'),
    folders: z.array(z.string().min(1).max(4096)).max(50).optional().describe('folder paths (metadata, never the membership rule); the first is primary'),
    archived: z.boolean().optional().describe('archive the project after creating it'),
  })
  .describe('a project: created once by id, left unchanged on re-import');

export const sessionLineSchema = z
  .strictObject({
    kind: z.literal('session').describe('record type'),
    id: sessionIdSchema,
    project_id: projectIdSchema.nullable().optional().describe('owning project (must already exist, e.g. earlier in the file); null or absent = no project'),
    parent_session_id: sessionIdSchema.nullable().optional().describe('parent session for non-root lineage (must already exist)'),
    lineage: z.enum(['root', 'compression', 'branch', 'reset', 'delegation']).optional().describe('how this session relates to its parent (default root)'),
    source: z.string().min(1).max(64).optional().describe('where the conversation came from (default "import")'),
    title: optionalText(500, 'title'),
    cwd: optionalText(4096, 'working directory'),
    git_repo_root: optionalText(4096, 'git repository root'),
    git_branch: optionalText(500, 'git branch'),
    model: optionalText(200, 'model name'),
    started_at: timestampSchema.optional(),
    ended_at: timestampSchema.nullish(),
    end_reason: optionalText(200, 'why the session ended'),
    archived: z.boolean().optional().describe('archived conversation'),
    hidden: z.boolean().optional().describe('hidden from lists (e.g. a sub-agent session); still part of its conversation'),
  })
  .describe('a session: created by id; on re-import only differing fields are updated and the project is never changed');

export const messageLineSchema = z
  .strictObject({
    kind: z.literal('message').describe('record type'),
    session_id: sessionIdSchema.describe('the session this message belongs to (must be imported before it)'),
    external_id: z.string().min(1).max(500).describe('stable id of the message in its source, unique per session: re-import skips it'),
    role: z.enum(['user', 'assistant', 'system', 'tool']).describe('speaker role'),
    content: z.string().max(MAX_MESSAGE_CHARS).describe('original text'),
    created_at: timestampSchema.optional(),
    tool_name: optionalText(200, 'tool name for tool messages'),
    tool_calls: z
      .union([z.string().max(MAX_MESSAGE_CHARS), z.array(z.unknown()), z.record(z.string(), z.unknown())])
      .nullish()
      .describe('tool calls of an assistant message, as JSON text or a JSON value'),
    tool_call_id: optionalText(200, 'tool call id answered by a tool message'),
    visibility: z.enum(['live', 'compacted', 'rewound']).optional().describe('live (default), compacted (left the live context, still recallable) or rewound (no longer part of the history, never recalled)'),
  })
  .describe('a message: appended once per (session_id, external_id)');

const KINDS = ['project', 'session', 'message'] as const;

export type ProjectLine = z.output<typeof projectLineSchema>;
export type SessionLine = z.output<typeof sessionLineSchema>;
export type MessageLine = z.output<typeof messageLineSchema>;
export type ImportRecord = ProjectLine | SessionLine | MessageLine;

// ---------------------------------------------------------------------------------------------
// Results

export interface ImportLineError {
  /** 1-based line number in the input. */
  line: number;
  /** Stable code (see the module header). */
  code: string;
  message: string;
}

// The summary is the wire object `import.jsonl` returns, so its type is @recall/rpc-contract's
// `ImportSummary` (same fields: lines, projects, sessions, messages, sessionsUpdated, skipped,
// errors — at most MAX_REPORTED_ERRORS, in line order — and errorCount, which can exceed errors.length).

export interface ImportProgress {
  lines: number;
  /** UTF-8 bytes consumed so far (including newlines). */
  bytes: number;
  /** Total bytes when known (file size), else null. */
  totalBytes: number | null;
  summary: Readonly<ImportSummary>;
}

export interface ImportOptions {
  batchLines?: number;
  /** Called after every committed batch. */
  onProgress?: (progress: ImportProgress) => void;
}

function emptySummary(): ImportSummary {
  return { lines: 0, projects: 0, sessions: 0, messages: 0, sessionsUpdated: 0, skipped: 0, errors: [], errorCount: 0 };
}

// ---------------------------------------------------------------------------------------------
// Parsing

export type ParsedLine = { ok: true; line: number; record: ImportRecord } | { ok: false; error: ImportLineError };

const FORMAT_DOC = 'docs/import-format.md';

/** What a field is for, from its schema's `.describe()`, so a message can say what to put there. */
function fieldHelp(schema: z.ZodObject, field: string): string {
  const description = (schema.shape as Record<string, z.ZodType | undefined>)[field]?.description;
  return description ? ` (${description})` : '';
}

/**
 * One message per problem that names the field and the fix: a missing field is "missing required
 * field "external_id" (stable id of …)", not zod's "expected string, received undefined"; an
 * unknown field lists the allowed ones.
 */
function zodMessage(error: z.ZodError, schema: z.ZodObject, line: object): string {
  const allowed = Object.keys(schema.shape).join(', ');
  return error.issues
    .slice(0, 3)
    .map((i) => {
      const field = i.path.map(String).join('.');
      const top = String(i.path[0] ?? '');
      if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length === 1 ? '' : 's'} ${i.keys.map((k) => JSON.stringify(k)).join(', ')}; allowed fields: ${allowed}`;
      // zod 4 issues carry no input, so "missing" is decided from the line itself: a field present
      // with the wrong type gets zod's "expected string, received number", not "missing".
      if (i.code === 'invalid_type' && i.path.length === 1 && (line as Record<string, unknown>)[top] === undefined) return `missing required field "${field}"${fieldHelp(schema, top)}`;
      return `field "${field}": ${i.message}${i.path.length === 1 ? fieldHelp(schema, top) : ''}`;
    })
    .join('; ');
}

/** Validates one line of text. Never throws. */
export function parseLine(text: string, line: number): ParsedLine {
  // A character is 1-3 UTF-8 bytes (a surrogate pair: 2 characters, 4 bytes): count only when it matters.
  if (text.length * 3 > MAX_LINE_BYTES) {
    const bytes = text.length > MAX_LINE_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_LINE_BYTES) return { ok: false, error: { line, code: 'line_too_long', message: lineTooLongMessage(bytes) } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: { line, code: 'invalid_json', message: `Not valid JSON: ${(error as Error).message}`.slice(0, 300) } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: { line, code: 'invalid_json', message: 'Each line must be a JSON object.' } };
  }
  const kind = (value as { kind?: unknown }).kind;
  const schema = kind === 'project' ? projectLineSchema : kind === 'session' ? sessionLineSchema : kind === 'message' ? messageLineSchema : null;
  if (schema === null) {
    const expected = KINDS.map((k) => `"${k}"`).join(', ');
    const message =
      kind === undefined
        ? `missing required field "kind": add "kind": ${expected} to say what the line describes (see ${FORMAT_DOC}).`
        : `field "kind" is ${typeof kind === 'string' ? JSON.stringify(kind.slice(0, 40)) : `a ${typeof kind}`}; it must be one of ${expected} (see ${FORMAT_DOC}).`;
    return { ok: false, error: { line, code: 'unknown_kind', message } };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, error: { line, code: 'invalid_line', message: `Invalid ${String(kind)} line: ${zodMessage(parsed.error, schema, value)} (see ${FORMAT_DOC}).` } };
  return { ok: true, line, record: parsed.data };
}

// ---------------------------------------------------------------------------------------------
// Applying records

/** Store and schema errors are refusals of one line; anything else (I/O, a full disk, bugs) aborts the import. */
function lineErrorOf(error: unknown, line: number): ImportLineError | null {
  if ((error instanceof StoreError || error instanceof RecallSchemaError) && !abortsImport(error)) {
    return { line, code: (error as Error & { code: string }).code, message: error.message.slice(0, 500) };
  }
  return null;
}

/** Projects to archive once the whole input is imported (so the file's own sessions can still go into them). */
type ArchiveQueue = string[];

function* applyProject(tx: BatchStores, record: ProjectLine, summary: ImportSummary, archiveLater: ArchiveQueue): BatchProgram<void> {
  if (yield* batchCall(tx.projects.find(record.id))) {
    summary.skipped++;
    return;
  }
  yield* batchCall(
    tx.projects.create({
      id: record.id,
      name: record.name,
      description: record.description ?? null,
      color: record.color ?? null,
      icon: record.icon ?? null,
      ...(record.folders ? { folders: record.folders } : {}),
    }),
  );
  if (record.archived) archiveLater.push(record.id);
  summary.projects++;
}

/** The session fields a line may set, in the store's camelCase; absent keys stay absent. */
function sessionFields(record: SessionLine): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const put = (key: string, value: unknown): void => {
    if (value !== undefined) fields[key] = value;
  };
  put('title', record.title);
  put('cwd', record.cwd);
  put('gitRepoRoot', record.git_repo_root);
  put('gitBranch', record.git_branch);
  put('model', record.model);
  put('source', record.source ?? 'import');
  put('startedAt', record.started_at);
  put('endedAt', record.ended_at);
  put('endReason', record.end_reason);
  put('archived', record.archived);
  put('hidden', record.hidden);
  return fields;
}

function differs(current: Session, fields: Record<string, unknown>): boolean {
  const stored = current as unknown as Record<string, unknown>;
  return Object.entries(fields).some(([key, value]) => (stored[key] ?? null) !== (value ?? null));
}

function* applySession(tx: BatchStores, record: SessionLine, summary: ImportSummary): BatchProgram<void> {
  const fields = sessionFields(record);
  const current = yield* batchCall(tx.sessions.find(record.id));
  if (current === undefined) {
    yield* batchCall(tx.sessions.create({
      ...fields,
      id: record.id,
      lineage: record.lineage ?? 'root',
      parentSessionId: record.parent_session_id ?? null,
      // Only an explicit key reaches the store: for compression/delegation children an absent key means "inherit".
      ...(record.project_id !== undefined ? { projectId: record.project_id } : {}),
    }));
    summary.sessions++;
    return;
  }
  // Existing session: the store refuses a changed lineage/parent (reported as invalid_lineage).
  const lineage = record.lineage ?? 'root';
  const parent = record.parent_session_id ?? null;
  if (lineage !== current.lineage || parent !== current.parentSessionId || differs(current, fields)) {
    // projectId deliberately omitted: upsert keeps the stored project (re-import never moves a conversation).
    yield* batchCall(tx.sessions.upsert({ ...fields, id: record.id, lineage, parentSessionId: parent }));
    summary.sessionsUpdated++;
    return;
  }
  summary.skipped++;
}

/** A message line's fields under the store's names, for the importers' one toNewMessage(). */
function messageFields(record: MessageLine): MessageFields {
  return {
    role: record.role,
    content: record.content,
    externalId: record.external_id,
    createdAt: record.created_at,
    toolName: record.tool_name,
    toolCalls: record.tool_calls,
    toolCallId: record.tool_call_id,
    visibility: record.visibility,
  };
}

function addError(summary: ImportSummary, error: ImportLineError): void {
  summary.errorCount++;
  if (summary.errors.length < MAX_REPORTED_ERRORS) summary.errors.push(error);
}

/**
 * Applies one batch of parsed lines in one write transaction. Consecutive messages of one session
 * go to the store in one append call (one savepoint, one index update); if the store refuses
 * the group, it is retried line by line so the error lands on the right line number.
 */
/** One step of a batch: a refused line, one project/session line, or consecutive messages of one session. */
type BatchUnit =
  | { kind: 'error'; error: ImportLineError }
  | { kind: 'line'; line: number; record: ProjectLine | SessionLine }
  | { kind: 'messages'; sessionId: string; lines: number[]; messages: NewMessageInput[] };
type NewMessageInput = ReturnType<typeof toNewMessage>;

/** The batch as units, computed before the write transaction (the batch program only writes). */
function unitsOf(batch: readonly ParsedLine[]): BatchUnit[] {
  const units: BatchUnit[] = [];
  let last: Extract<BatchUnit, { kind: 'messages' }> | null = null;
  for (const entry of batch) {
    if (!entry.ok) {
      units.push({ kind: 'error', error: entry.error });
      last = null;
    } else if (entry.record.kind === 'message') {
      const message = toNewMessage(messageFields(entry.record));
      if (last !== null && last.sessionId === entry.record.session_id) {
        last.lines.push(entry.line);
        last.messages.push(message);
      } else units.push((last = { kind: 'messages', sessionId: entry.record.session_id, lines: [entry.line], messages: [message] }));
    } else {
      units.push({ kind: 'line', line: entry.line, record: entry.record });
      last = null;
    }
  }
  return units;
}

async function applyBatch(storage: Storage, batch: ParsedLine[], summary: ImportSummary, archiveLater: ArchiveQueue): Promise<void> {
  // Errors collected inside the transaction are only added once it committed, so an aborted batch reports nothing twice.
  const pending = emptySummary();
  const queued: string[] = [];
  const units = unitsOf(batch);
  await batchesOf(storage).run(function* (tx): BatchProgram<void> {
    for (const unit of units) {
      if (unit.kind === 'error') {
        addError(pending, unit.error);
      } else if (unit.kind === 'messages') {
        try {
          const result = yield* batchCall(tx.messages.append(unit.sessionId, unit.messages));
          pending.messages += result.inserted;
          pending.skipped += result.skipped;
        } catch (error) {
          if (lineErrorOf(error, unit.lines[0]!) === null) throw error;
          for (let k = 0; k < unit.messages.length; k++) {
            try {
              const result = yield* batchCall(tx.messages.append(unit.sessionId, [unit.messages[k]!]));
              pending.messages += result.inserted;
              pending.skipped += result.skipped;
            } catch (inner) {
              const lineError = lineErrorOf(inner, unit.lines[k]!);
              if (lineError === null) throw inner;
              addError(pending, lineError);
            }
          }
        }
      } else {
        try {
          if (unit.record.kind === 'project') yield* applyProject(tx, unit.record, pending, queued);
          else yield* applySession(tx, unit.record, pending);
        } catch (error) {
          const lineError = lineErrorOf(error, unit.line);
          if (lineError === null) throw error;
          addError(pending, lineError);
        }
      }
    }
  });
  archiveLater.push(...queued);
  summary.projects += pending.projects;
  summary.sessions += pending.sessions;
  summary.messages += pending.messages;
  summary.sessionsUpdated += pending.sessionsUpdated;
  summary.skipped += pending.skipped;
  for (const error of pending.errors) addError(summary, error);
  summary.errorCount += pending.errorCount - pending.errors.length;
}

// ---------------------------------------------------------------------------------------------
// Drivers

/** One line as a driver sees it: its text (null when over the cap and never read), its byte length, where it ends. */
interface RawLine {
  line: number;
  text: string | null;
  bytes: number;
  /** Bytes consumed after this line (progress). */
  endOffset: number;
}

async function importRawLines(
  target: ImportTarget,
  batches: AsyncIterable<readonly RawLine[]> | Iterable<readonly RawLine[]>,
  options: ImportOptions & { totalBytes?: number | null },
): Promise<ImportSummary> {
  const batchLines = Math.max(1, Math.floor(options.batchLines ?? DEFAULT_IMPORT_BATCH_LINES));
  const storage = storageOf(target);
  batchesOf(storage); // storage_unsupported before anything is read
  const summary = emptySummary();
  const archiveLater: ArchiveQueue = [];
  let batch: ParsedLine[] = [];
  let bytes = 0;
  let lastCommittedLine = 0;
  const flush = async (): Promise<void> => {
    if (batch.length > 0) {
      try {
        await applyBatch(storage, batch, summary, archiveLater);
      } catch (error) {
        if (!abortsImport(error)) throw error;
        // Nothing of this batch is stored; `summary` holds exactly the committed ones.
        const { errors: _errors, ...counts } = summary;
        throw new ImportAbortedError(error as Error & { code: string }, { ...counts, lines: summary.lines - batch.length, lastCommittedLine });
      }
      const last = batch[batch.length - 1]!;
      lastCommittedLine = last.ok ? last.line : last.error.line;
    }
    batch = [];
    options.onProgress?.({ lines: summary.lines, bytes, totalBytes: options.totalBytes ?? null, summary });
    await yieldToEventLoop();
  };
  for await (const lines of batches) {
    for (const raw of lines) {
      bytes = raw.endOffset;
      if (raw.text === null) {
        summary.lines++;
        batch.push({ ok: false, error: { line: raw.line, code: 'line_too_long', message: lineTooLongMessage(raw.bytes) } });
      } else {
        // A UTF-8 BOM may precede the first line of files written by some editors.
        const text = raw.line === 1 && raw.text.charCodeAt(0) === 0xfeff ? raw.text.slice(1) : raw.text;
        if (text.trim() === '') continue;
        summary.lines++;
        batch.push(parseLine(text, raw.line));
      }
      if (batch.length >= batchLines) await flush();
    }
  }
  await flush();
  if (archiveLater.length > 0) {
    await batchesOf(storage).run(function* (tx): BatchProgram<void> {
      for (const id of archiveLater) yield* batchCall(tx.projects.archive(id, true));
    });
  }
  return summary;
}

/** Text lines as raw lines, one per batch (offsets counted in UTF-8 bytes, for progress). */
async function* textLines(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<RawLine[]> {
  let line = 0;
  let offset = 0;
  for await (const text of lines) {
    line++;
    const bytes = Buffer.byteLength(text, 'utf8');
    offset += bytes + 1;
    yield [{ line, text, bytes, endOffset: offset }];
  }
}

/**
 * Imports lines from any (async) iterable of text lines. Yields to the event loop between batches
 * so a gateway serving other clients stays responsive during a large import.
 */
export function importJsonlLines(
  db: ImportTarget,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions & { totalBytes?: number | null } = {},
): Promise<ImportSummary> {
  return importRawLines(db, textLines(lines), options);
}

/** Splits on \n (tolerating \r\n) without copying the whole text into an array of lines first. */
function* splitLines(text: string): Generator<string> {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    yield line.endsWith('\r') ? line.slice(0, -1) : line;
    start = end + 1;
  }
}

/** Imports a whole recall-jsonl document held in memory (the RPC method `import.jsonl`, tests, the bench). */
export function importJsonlText(db: ImportTarget, text: string, options: ImportOptions = {}): Promise<ImportSummary> {
  return importJsonlLines(db, splitLines(text), { ...options, totalBytes: Buffer.byteLength(text, 'utf8') });
}

/** Streams a recall-jsonl file from disk (the CLI's `recall import`). */
/**
 * Streams a recall-jsonl file from disk (the CLI's `recall import`) through the byte-level line
 * reader: memory stays bounded by MAX_LINE_BYTES whatever the file holds.
 */
export function importJsonlFile(db: ImportTarget, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const totalBytes = statSync(path).size;
  return importRawLines(db, readLineBatches(path, { partialLast: 'yield' }), { ...options, totalBytes });
}
