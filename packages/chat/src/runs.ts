/**
 * Chat runs: the host-side owner of every answer in progress. `send()` validates, persists the
 * user's message FIRST (so a crash loses at most the partial answer, never what the user wrote),
 * then starts the loop (loop.ts) in the background and returns at once; `done` resolves with
 * the run's outcome and never rejects. One run per session at a time — two interleaved answers
 * would corrupt the tool-call pairing of the history. Each run has an AbortController that carries
 * cancellation (`cancel()`), the per-turn deadline (a timer) and gateway shutdown into the OpenAI
 * request; the reason is recorded before aborting, so the outcome says why it stopped. Every
 * persisted message raises `messages.changed`; the run's progress goes out as `chat.*` events.
 * Every read and write goes through the storage ports (SQLite or PostgreSQL): `start()` begins a
 * run, `checkOpen()` refuses a compressed session, and `exclusive()` holds a session like a run
 * while a host writes to it (the gateway's `/compress`), so no answer can start in between.
 */
import { randomBytes } from 'node:crypto';
import type { RecallDatabase } from '@recall/schema';
import type { MessageInput, Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import OpenAI from 'openai';
import type { ChatRunOutcome, ChatRunStatus, ChatToolReport, Message, Session } from '@recall/rpc-contract';
import { abortError, classifyChatError, type AbortReason } from './classify.js';
import { publicChatSettings, type ChatSettings } from './config.js';
import { ChatError, ChatShuttingDownError } from './errors.js';
import { loadLiveHistory, toModelMessages } from './history.js';
import type { SessionSearchExecutor } from '@recall/search-tool';
import type { ChatEventSink, ChatLogger } from './host.js';
import { runChatTurn } from './loop.js';
import { RedactionPolicy } from '@recall/redaction';
import { chatToolDefinitions } from './tools.js';

/** Finished runs remembered for chat.cancel / chat.status answers (oldest dropped first). */
const RECENT_RUNS = 200;

export interface ChatRunsDeps {
  /** The storage runs read and write through (SQLite or PostgreSQL). Default: the SQLite ports over `db`. */
  storage?: Storage;
  /** An open SQLite profile database, wrapped in the SQLite ports when `storage` is absent. */
  db?: RecallDatabase;
  profile: string;
  /** Receives `messages.changed` for every stored message and the run's `chat.*` events. */
  events: ChatEventSink;
  logger: ChatLogger;
  searchTool: SessionSearchExecutor | null;
  /**
   * What is redacted before a request leaves for the model (messages on the `chat` surface, tool
   * results on `search_results`). Default: a `RedactionPolicy` of @recall/redaction with the
   * built-in rules, every surface on.
   */
  redaction?: RedactionPolicy;
}

// What a run reports is part of the wire contract (chat.send {wait:true}, chat.cancel).
export type { ChatToolReport, ChatRunStatus, ChatRunOutcome } from '@recall/rpc-contract';

export interface ChatRunHandle {
  runId: string;
  sessionId: string;
  userMessageId: number;
  /** Resolves when the run ends, whatever the reason; never rejects. */
  done: Promise<ChatRunOutcome>;
}

interface ActiveRun {
  runId: string;
  sessionId: string;
  userMessageId: number;
  startedAt: number;
  controller: AbortController;
  abortReason: AbortReason | null;
  messageIds: number[];
  toolCalls: ChatToolReport[];
  /** Set right after the run starts. */
  done: Promise<ChatRunOutcome> | null;
}

export function newRunId(): string {
  return `run_${randomBytes(12).toString('base64url')}`;
}

/** The newest compression continuation of `sessionId`, if the conversation went on elsewhere. */
export async function latestContinuation(storage: Storage, sessionId: string): Promise<string | null> {
  return newestContinuation(await storage.sessions.conversation(sessionId), sessionId);
}

function newestContinuation(members: ReadonlyArray<{ id: string; parentSessionId: string | null; lineage: string }>, sessionId: string): string | null {
  let current = sessionId;
  for (;;) {
    const next = members.find((m) => m.parentSessionId === current && m.lineage === 'compression');
    if (!next) return current === sessionId ? null : current;
    current = next.id;
  }
}

function sessionEnded(sessionId: string, continuation: string | null): ChatError {
  return new ChatError('chat_session_ended', `Session ${sessionId} was compressed and continues in ${continuation ?? 'a continuation'}; use that session.`, {
    data: continuation === null ? { sessionId } : { sessionId, continuationId: continuation },
  });
}

export class ChatRuns {
  readonly settings: ChatSettings;
  readonly #deps: ChatRunsDeps;
  readonly #storage: Storage;
  readonly #redaction: RedactionPolicy;
  readonly #client: OpenAI | null;
  readonly #active = new Map<string, ActiveRun>();
  readonly #bySession = new Map<string, string>();
  readonly #recent = new Map<string, ChatRunOutcome>();
  #closed = false;

  constructor(deps: ChatRunsDeps, settings: ChatSettings) {
    this.#deps = deps;
    if (deps.storage === undefined && deps.db === undefined) throw new TypeError('ChatRuns needs a storage (or an open SQLite database).');
    this.#storage = deps.storage ?? sqliteStorage(deps.db!);
    this.#redaction = deps.redaction ?? new RedactionPolicy();
    this.settings = settings;
    this.#client = settings.configured
      ? new OpenAI({
          // Options the SDK would otherwise take from process.env are passed explicitly, so
          // config.ts stays the one place that decides them (the SDK still honours
          // OPENAI_CUSTOM_HEADERS on its own). Local servers need no key, but the SDK refuses to
          // start without one, so they are sent a placeholder.
          apiKey: settings.apiKey ?? 'no-key',
          baseURL: settings.baseUrl,
          organization: null,
          project: null,
          adminAPIKey: null,
          webhookSecret: null,
          maxRetries: settings.maxRetries,
          timeout: settings.turnTimeoutMs,
          logLevel: 'off',
        })
      : null;
  }

  /** `chat.status`: settings without the key, and the runs in progress. */
  status(): ReturnType<typeof publicChatSettings> & { searchAvailable: boolean; activeRuns: { runId: string; sessionId: string; userMessageId: number; startedAt: number }[] } {
    return {
      ...publicChatSettings(this.settings),
      searchAvailable: this.#deps.searchTool !== null,
      activeRuns: [...this.#active.values()].map((r) => ({ runId: r.runId, sessionId: r.sessionId, userMessageId: r.userMessageId, startedAt: r.startedAt })),
    };
  }

  /** Throws chat_busy when the session has a run in progress (also used by chat.compress). */
  assertIdle(sessionId: string): void {
    const runId = this.#bySession.get(sessionId);
    if (runId !== undefined) {
      throw new ChatError('chat_busy', `Session ${sessionId} is still answering (run ${runId}); wait for it or cancel it with chat.cancel.`, {
        data: { sessionId, runId },
        retryable: true,
      });
    }
  }

  /**
   * The session, unless it was compressed: its conversation goes on in the continuation, and a
   * message (or a second /compress) here would fork the logical conversation. Throws
   * chat_session_ended, session_not_found.
   */
  async checkOpen(sessionId: string): Promise<Session> {
    const session = await this.#storage.sessions.get(sessionId);
    if (session.endReason === 'compression') throw sessionEnded(sessionId, await latestContinuation(this.#storage, sessionId));
    return session;
  }

  /**
   * Stores the user's message and starts answering it in the background (`done` resolves with the
   * outcome). Throws chat_shutting_down, chat_not_configured, chat_busy, chat_session_ended,
   * session_not_found — and then nothing was stored.
   */
  async start(sessionId: string, content: string): Promise<ChatRunHandle> {
    const { client, model } = this.#configured();
    this.assertIdle(sessionId);
    // Reserved before the first await: no other start for this session can slip in while we read and write.
    const runId = newRunId();
    this.#bySession.set(sessionId, runId);
    let session: Session;
    let user: Message;
    try {
      session = await this.checkOpen(sessionId);
      user = await this.#persist(session, { role: 'user', content });
    } catch (error) {
      this.#bySession.delete(sessionId);
      throw error;
    }
    return this.#begin(runId, session, user, client, model);
  }

  /**
   * Runs `fn` on an open, idle session while holding it like a run: a start() (or another
   * exclusive()) for it meanwhile is refused with chat_busy. Throws chat_busy, chat_session_ended,
   * session_not_found before `fn` runs; what `fn` throws passes through.
   */
  async exclusive<T>(sessionId: string, fn: (session: Session) => Promise<T>): Promise<T> {
    this.assertIdle(sessionId);
    const holder = newRunId();
    this.#bySession.set(sessionId, holder);
    try {
      return await fn(await this.checkOpen(sessionId));
    } finally {
      if (this.#bySession.get(sessionId) === holder) this.#bySession.delete(sessionId);
    }
  }

  /** The client and model, or chat_shutting_down / chat_not_configured. */
  #configured(): { client: OpenAI; model: string } {
    const client = this.#client;
    if (this.#closed) throw new ChatShuttingDownError();
    if (client === null || this.settings.model === null) {
      throw new ChatError('chat_not_configured', `No chat model is configured (missing: ${this.settings.missing.join(', ')}). ${publicChatSettings(this.settings).howToConfigure}`, {
        data: { missing: this.settings.missing.join(', '), howToConfigure: publicChatSettings(this.settings).howToConfigure },
      });
    }
    return { client, model: this.settings.model };
  }

  /** Registers the run (its session already reserved under `runId`, the user's message stored) and starts it. */
  #begin(runId: string, session: Session, user: Message, client: OpenAI, model: string): ChatRunHandle {
    const sessionId = session.id;
    const run: ActiveRun = {
      runId,
      sessionId,
      userMessageId: user.id,
      startedAt: Date.now(),
      controller: new AbortController(),
      abortReason: null,
      messageIds: [user.id],
      toolCalls: [],
      done: null,
    };
    this.#active.set(runId, run);
    this.#deps.events.emit({ type: 'chat.started', sessionId, runId, userMessageId: user.id });
    // A shutdown that began while the user's message was being stored ends this run at once.
    if (this.#closed) this.#abort(run, 'shutdown');
    const done = this.#execute(run, session, client, model);
    run.done = done;
    return { runId, sessionId, userMessageId: user.id, done };
  }

  /** Cancels a run in progress; a finished run answers cancelled:false with its status. */
  cancel(runId: string): { runId: string; cancelled: boolean; status: ChatRunStatus } {
    const run = this.#active.get(runId);
    if (run) {
      this.#abort(run, 'cancelled');
      return { runId, cancelled: true, status: 'running' };
    }
    const finished = this.#recent.get(runId);
    if (finished) return { runId, cancelled: false, status: finished.status };
    throw new ChatError('chat_run_not_found', `No chat run ${runId} is known to this gateway.`, { data: { runId } });
  }

  /** Aborts every run (reason "shutdown") and waits until each has stored what it completed. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    const runs = [...this.#active.values()];
    for (const run of runs) this.#abort(run, 'shutdown');
    await Promise.allSettled(runs.map((r) => r.done));
  }

  #abort(run: ActiveRun, reason: AbortReason): void {
    if (run.controller.signal.aborted) return;
    run.abortReason = reason;
    run.controller.abort(reason);
  }

  /** Stores one message and announces it with the ordinary change event. */
  async #persist(session: Session, message: MessageInput): Promise<Message> {
    const stored = (await this.#storage.messages.append(session.id, [message])).messages[0]!;
    // Re-read: the conversation may have been moved while the run was going on.
    this.#announce(session.id, await this.#storage.sessions.projectId(session.id), stored.id);
    return stored;
  }

  #announce(sessionId: string, projectId: string | null, messageId: number): void {
    this.#deps.events.emit({
      type: 'messages.changed',
      ...(projectId === null ? { unassigned: true } : { projectIds: [projectId] }),
      sessionIds: [sessionId],
      messageIds: [messageId],
    });
  }

  async #execute(run: ActiveRun, session: Session, client: OpenAI, model: string): Promise<ChatRunOutcome> {
    const { events, logger, profile, searchTool } = this.#deps;
    const deadline = setTimeout(() => this.#abort(run, 'deadline'), this.settings.turnTimeoutMs);
    let outcome: ChatRunOutcome;
    try {
      const history = toModelMessages(await loadLiveHistory(this.#storage, session.id));
      const result = await runChatTurn({
        client,
        model,
        maxToolRounds: this.settings.maxToolRounds,
        maxRetries: this.settings.maxRetries,
        tools: chatToolDefinitions(searchTool),
        executor: searchTool,
        trusted: { currentSessionId: session.id, profile },
        history,
        redaction: this.#redaction,
        signal: run.controller.signal,
        persist: async (message) => {
          const stored = await this.#persist(session, message);
          run.messageIds.push(stored.id);
          return stored;
        },
        onDelta: (round, text) => events.emit({ type: 'chat.delta', sessionId: session.id, runId: run.runId, round, text }),
        onTool: (round, call, tool, messageId) => {
          const report: ChatToolReport = {
            toolCallId: call.id,
            name: call.name,
            arguments: tool.arguments,
            used_mode: tool.used_mode,
            hits: tool.hits,
            anchors: tool.anchors,
            ...(tool.error ? { error: tool.error } : {}),
            messageId,
          };
          run.toolCalls.push(report);
          events.emit({ type: 'chat.tool', sessionId: session.id, runId: run.runId, round, ...report });
        },
      });
      outcome = this.#outcome(run, 'completed', { messageId: result.final.id, content: result.final.content, rounds: result.rounds, error: null });
    } catch (thrown) {
      // An abort we asked for wins over whatever the SDK threw while being aborted.
      const reason = run.controller.signal.aborted ? run.abortReason : null;
      const error = reason !== null ? abortError(reason, this.settings) : classifyChatError(thrown, this.settings);
      const status = error.code === 'chat_cancelled' ? 'cancelled' : 'failed';
      if (status === 'failed') logger.warn('Chat run failed', { runId: run.runId, sessionId: session.id, code: error.code, ...(error.data ?? {}) });
      if (error.code === 'chat_failed') logger.error('Chat run error', { runId: run.runId, error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown) });
      outcome = this.#outcome(run, status, { messageId: null, content: null, rounds: null, error: { code: error.code, message: error.message, retryable: error.retryable } });
    } finally {
      clearTimeout(deadline);
    }
    // Free the session before announcing the end, so a client reacting to the terminal event can send again.
    this.#active.delete(run.runId);
    if (this.#bySession.get(session.id) === run.runId) this.#bySession.delete(session.id);
    this.#remember(outcome);
    if (outcome.status === 'completed') {
      events.emit({ type: 'chat.done', sessionId: session.id, runId: run.runId, messageId: outcome.messageId!, status: 'completed' });
    } else {
      events.emit({
        type: 'chat.error',
        sessionId: session.id,
        runId: run.runId,
        status: outcome.status,
        code: outcome.error!.code,
        message: outcome.error!.message,
        retryable: outcome.error!.retryable,
        messageIds: [...outcome.messageIds],
      });
    }
    return outcome;
  }

  #outcome(
    run: ActiveRun,
    status: ChatRunOutcome['status'],
    fields: Pick<ChatRunOutcome, 'messageId' | 'content' | 'rounds' | 'error'>,
  ): ChatRunOutcome {
    return {
      runId: run.runId,
      sessionId: run.sessionId,
      userMessageId: run.userMessageId,
      status,
      ...fields,
      messageIds: [...run.messageIds],
      toolCalls: [...run.toolCalls],
      startedAt: run.startedAt,
      finishedAt: Date.now(),
    };
  }

  #remember(outcome: ChatRunOutcome): void {
    this.#recent.set(outcome.runId, outcome);
    while (this.#recent.size > RECENT_RUNS) {
      const oldest = this.#recent.keys().next().value;
      if (oldest === undefined) break;
      this.#recent.delete(oldest);
    }
  }

  /** A finished run's outcome, while it is remembered. */
  outcomeOf(runId: string): ChatRunOutcome | null {
    return this.#recent.get(runId) ?? null;
  }
}
