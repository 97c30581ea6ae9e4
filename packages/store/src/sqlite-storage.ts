/**
 * The SQLite adapter of @recall/storage-ports: today's synchronous store functions behind the async
 * ports, unchanged (each method is the existing function on the same connection; no new SQL except
 * the change feed's poll in sqlite-feed.ts and the read transactions around batch reads and, on a
 * read-only connection, around a whole read scope). `sqliteStorage(db)` wraps an open profile database;
 * `openSqliteStorage(config)` opens one (openDatabase) and closes it with the bundle.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import type { KeywordIndex, MessageStore, ProjectStore, SessionStore, Storage, StorageConfig } from '@recall/storage-ports';
import { conversationRootId, conversationSegments, logicalConversation, ownHistorySessionIds } from './conversation.js';
import { discoveredFolders } from './folders.js';
import { keywordSearch } from './keyword-search.js';
import { createBranch, createContinuation, createDelegation, createReset } from './lineage.js';
import { appendMessages, compactMessages, deleteMessage, editMessage, existingExternalIds, findMessage, getMessage, getMessages, rewindSession } from './messages.js';
import { setSessionProject } from './moves.js';
import { deleteConversation, purgeHiddenMessages, purgeProject } from './purge.js';
import { conversationContaining, listConversations, messagePage } from './pages.js';
import {
  addProjectFolder,
  archiveProject,
  createProject,
  deleteProject,
  findProject,
  findProjectByFolder,
  findProjectByRef,
  getProject,
  listProjects,
  projectCoveringFolder,
  projectExists,
  projectForFolder,
  removeProjectFolder,
  updateProject,
} from './projects.js';
import { recentConversations } from './recent-conversations.js';
import { createSession, endSession, findSession, findSessionHeader, getSession, getSessionHeader, listSessions, sessionProjectId, setSessionCwd, setSessionTitle, updateSession, upsertSession } from './sessions.js';
import { sqliteWriteBatches } from './sqlite-batches.js';
import { sqliteChangeFeed, type SqliteChangeFeed } from './sqlite-feed.js';
import { keywordCounts, projectTextSample } from './stats.js';
import { sqliteTransferSource } from './sqlite-transfer.js';
import { prepared, readTransaction } from './transaction.js';
import { messageWindow, segmentsHeadTail, segmentWindow } from './windows.js';

/** Runs a synchronous store call as a promise (a thrown StoreError becomes a rejection). */
const run = <T>(fn: () => T): Promise<T> => {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
};

/**
 * A batch read as the per-id store call in a loop (one file, no round trips: the prepared statement
 * per id is as fast as one statement over the list), inside one read transaction: one snapshot for
 * the whole batch and one BEGIN instead of one implicit read transaction per statement (in WAL mode
 * each implicit one costs about as much as a primary-key read). Ids `read` answers undefined for are absent.
 */
const batch = <K, V>(db: RecallDatabase, ids: readonly K[], read: (id: K) => V | undefined): Promise<Map<K, V>> =>
  run(() =>
    readTransaction(db, () => {
      const out = new Map<K, V>();
      for (const id of ids) {
        if (out.has(id)) continue;
        const value = read(id);
        if (value !== undefined) out.set(id, value);
      }
      return out;
    }),
  );

/**
 * Runs `fn` (a caller's whole read scope, e.g. one session_search) in one read transaction when the
 * connection is read-only and not in a transaction already: the scope's many small reads then share
 * one snapshot and one BEGIN, and another connection's commits in between (the gateway appending
 * while a search worker reads) no longer make SQLite re-validate its page cache at every statement.
 * Only on a read-only connection: nothing can write on it while `fn` awaits, so holding the snapshot
 * across awaits cannot fold anyone's write into it. A read-write connection runs `fn` as before.
 */
function readSnapshot<T>(db: RecallDatabase, fn: () => Promise<T>): Promise<T> {
  const raw = db.raw;
  if (!raw.readonly || raw.inTransaction || !raw.open) return fn();
  prepared(db, 'BEGIN').run();
  const end = (): void => {
    // Only the call that began the transaction ends it (a call that found one open ran inside it);
    // a connection closed meanwhile has nothing left to end.
    if (raw.open && raw.inTransaction) prepared(db, 'COMMIT').run();
  };
  let pending: Promise<T>;
  try {
    pending = fn();
  } catch (error) {
    end();
    throw error;
  }
  return pending.finally(end);
}

/** The value of a read that throws for an unknown session (conversationRoot), or undefined. */
function orUndefined<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    if ((error as { code?: string }).code === 'session_not_found') return undefined;
    throw error;
  }
}

function projectStore(db: RecallDatabase): ProjectStore {
  return {
    create: (input) => run(() => {
        const { folders, ...rest } = input;
        return createProject(db, { ...rest, ...(folders ? { folders: [...folders] } : {}) });
      }),
    update: (id, changes) => run(() => updateProject(db, id, changes)),
    archive: (id, archived = true) => run(() => archiveProject(db, id, archived)),
    delete: (id) => run(() => deleteProject(db, id)),
    find: (id) => run(() => findProject(db, id)),
    get: (id) => run(() => getProject(db, id)),
    exists: (id) => run(() => projectExists(db, id)),
    findByRef: (ref) => run(() => findProjectByRef(db, ref)),
    list: (options = {}) => run(() => listProjects(db, options)),
    addFolder: (id, path, options = {}) => run(() => addProjectFolder(db, id, path, options)),
    removeFolder: (id, path) => run(() => removeProjectFolder(db, id, path)),
    findByFolder: (path) => run(() => findProjectByFolder(db, path)),
    coveringFolder: (path) => run(() => projectCoveringFolder(db, path)),
    forFolder: (path, options = {}) => run(() => projectForFolder(db, path, options)),
    discoveredFolders: (options = {}) => run(() => discoveredFolders(db, options)),
  };
}

function sessionStore(db: RecallDatabase): SessionStore {
  return {
    create: (input = {}) => run(() => createSession(db, input as Parameters<typeof createSession>[1])),
    upsert: (input) => run(() => upsertSession(db, input as Parameters<typeof upsertSession>[1])),
    update: (id, changes) => run(() => updateSession(db, id, changes)),
    get: (id) => run(() => getSession(db, id)),
    find: (id) => run(() => findSession(db, id)),
    getRecord: (id) => run(() => getSessionHeader(db, id)),
    findRecord: (id) => run(() => findSessionHeader(db, id)),
    findRecords: (ids) => batch(db, ids, (id) => findSessionHeader(db, id)),
    projectId: (id) => run(() => sessionProjectId(db, id)),
    list: (options = {}) => run(() => listSessions(db, options)),
    setCwd: (id, input) => run(() => setSessionCwd(db, id, input)),
    setTitle: (id, title) => run(() => setSessionTitle(db, id, title)),
    end: (id, reason) => run(() => endSession(db, id, reason)),
    move: (id, projectId) => run(() => setSessionProject(db, id, projectId)),
    continueCompressed: (id, options = {}) => run(() => createContinuation(db, id, options)),
    branch: (id, options = {}) => run(() => createBranch(db, id, options)),
    reset: (id, options = {}) => run(() => createReset(db, id, options)),
    delegate: (id, options = {}) => run(() => createDelegation(db, id, options)),
    conversationRoot: (id) => run(() => conversationRootId(db, id)),
    conversationRoots: (ids) => batch(db, ids, (id) => orUndefined(() => conversationRootId(db, id))),
    conversation: (id) => run(() => logicalConversation(db, id)),
    ownHistory: (id) => run(() => ownHistorySessionIds(db, id)),
    segments: (id) => run(() => conversationSegments(db, id)),
    // A known session is always a segment of its own chain: an empty chain is an unknown id.
    segmentsOf: (ids) =>
      batch(db, ids, (id) => {
        const segments = conversationSegments(db, id);
        return segments.length > 0 ? segments : undefined;
      }),
    listConversations: (options) => run(() => listConversations(db, options)),
    conversationContaining: (id) => run(() => conversationContaining(db, id)),
    recentConversations: (scope, options) => run(() => recentConversations(db, scope, options)),
  };
}

function messageStore(db: RecallDatabase): MessageStore {
  return {
    append: (id, messages) => run(() => appendMessages(db, id, messages as Parameters<typeof appendMessages>[2])),
    find: (id) => run(() => findMessage(db, id)),
    findMany: (ids) => batch(db, ids, (id) => findMessage(db, id)),
    get: (id) => run(() => getMessage(db, id)),
    edit: (id, content) => run(() => editMessage(db, id, content)),
    delete: (id) => run(() => deleteMessage(db, id)),
    rewind: (id, to) => run(() => rewindSession(db, id, to)),
    compact: (id, upTo) => run(() => compactMessages(db, id, upTo)),
    list: (id, options = {}) => run(() => getMessages(db, id, options)),
    window: (id, anchor, before, after) => run(() => messageWindow(db, id, anchor, before, after)),
    windows: (requests) => run(() => readTransaction(db, () => requests.map((r) => messageWindow(db, r.sessionId, r.anchorId, r.before, r.after)))),
    segmentWindow: (segments, anchor, before, after, options = {}) => run(() => segmentWindow(db, segments, anchor, before, after, options)),
    segmentsHeadTail: (segments, head, tail, options = {}) => run(() => segmentsHeadTail(db, segments, head, tail, options)),
    existingExternalIds: (id, externalIds) => run(() => existingExternalIds(db, id, externalIds)),
    page: (id, position, limit) => run(() => messagePage(db, id, position, limit)),
  };
}

function keywordIndex(db: RecallDatabase): KeywordIndex {
  return {
    search: (scope, query, options = {}) =>
      run(() => {
        const out = keywordSearch(db, scope, query, {
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          ...(options.roles ? { roleFilter: options.roles } : {}),
          ...(options.titleLimit !== undefined ? { titleLimit: options.titleLimit } : {}),
          ...(options.substringFallback ? { substringFallback: true } : {}),
          ...(options.since !== undefined ? { since: options.since } : {}),
          ...(options.until !== undefined ? { until: options.until } : {}),
          ...(options.partialCjk === false ? { cjkBackoff: 'bigram' as const } : {}),
          ...(options.order === 'any' ? { scopeStatistics: false } : {}),
        });
        return {
          hits: out.hits.map((h) => ({ messageId: h.messageId, sessionId: h.sessionId, role: h.role, createdAt: h.createdAt, score: h.score, snippet: h.snippet, matchedTerms: h.matchedTerms })),
          titleHits: out.titleHits.map((t) => ({ sessionId: t.sessionId, title: t.title, score: t.score, matchedTerms: t.matchedTerms })),
          notes: out.notes,
        };
      }),
  };
}

/**
 * The storage ports over an open profile database (the SQLite adapter). `close()` closes `db` only
 * when `ownsDatabase` is true (openSqliteStorage); the semantic part is attached by
 * @recall/semantic's `sqliteSemanticStorage` (stage B is optional).
 */
export function sqliteStorage(
  db: RecallDatabase,
  options: { ownsDatabase?: boolean; feedIntervalMs?: number; onFeedError?: (error: unknown) => void } = {},
): Storage & { readonly changes: SqliteChangeFeed } {
  let closed = false;
  const feed = sqliteChangeFeed(db, { ...(options.feedIntervalMs === undefined ? {} : { intervalMs: options.feedIntervalMs }), ...(options.onFeedError ? { onError: options.onFeedError } : {}) });
  const storage: Storage & { readonly changes: SqliteChangeFeed } = {
    kind: 'sqlite',
    profile: db.profile,
    projects: projectStore(db),
    sessions: sessionStore(db),
    messages: messageStore(db),
    keyword: keywordIndex(db),
    changes: feed,
    transfer: sqliteTransferSource(db),
    batches: sqliteWriteBatches(db),
    purges: {
      deleteConversation: (id) => run(() => deleteConversation(db, id)),
      deleteProject: (id, purgeOptions = {}) => run(() => purgeProject(db, id, purgeOptions)),
      purgeHidden: (id) => run(() => purgeHiddenMessages(db, id)),
    },
    stats: {
      keywordCounts: () => run(() => keywordCounts(db)),
      textSample: (projectId, sample) => run(() => projectTextSample(db, projectId, sample)),
    },
    async close() {
      if (closed) return;
      closed = true;
      await feed.closeAll();
      if (options.ownsDatabase) db.close();
    },
    // One file per profile and one process: there is no other project's reader to keep out here,
    // so a read scope is the storage itself (the callers' own scope filters apply as always), read in
    // one snapshot on a read-only connection (readSnapshot). `this`: a bundle spread with its semantic
    // part attached ({ ...sqliteStorage(db), semantic }) passes itself.
    withReadScope(_scope, fn) {
      return readSnapshot(db, () => fn(this));
    },
  };
  return storage;
}

/** Opens a profile database file (migrating it unless read-only) and returns its storage ports; close() closes the file. */
export async function openSqliteStorage(config: Extract<StorageConfig, { kind: 'sqlite' }>): Promise<Storage> {
  const db = openDatabase(config.path, { readonly: config.readonly ?? false });
  return sqliteStorage(db, { ownsDatabase: true });
}
