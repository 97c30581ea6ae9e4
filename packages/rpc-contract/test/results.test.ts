/**
 * The result schemas on their own: a well-formed answer passes; a missing, renamed, mistyped or
 * (for the store's strict objects) unexpected field fails — which is what lets gateway-rpc's result
 * test catch drift between the store, the gateway and the contract. The search result is open by
 * design (new optional fields must not break clients) but its closed vocabularies are enforced.
 */
import { describe, expect, test } from 'vitest';
import { RPC_METHOD_NAMES, RPC_RESULT_SCHEMAS, sessionSchema, type IndexStatus, type Session } from '../src/index.js';

const session: Session = {
  id: 's_1',
  projectId: 'p_1',
  parentSessionId: null,
  lineage: 'root',
  source: 'desktop',
  title: 'first',
  cwd: null,
  gitRepoRoot: null,
  gitBranch: null,
  model: null,
  startedAt: 1,
  endedAt: null,
  endReason: null,
  archived: false,
  hidden: false,
  createdAt: 1,
  updatedAt: 2,
  messageCount: 0,
  lastMessageAt: null,
};

const indexStatus: IndexStatus = {
  keyword: { messages: 3, sessions: 1, conversations: 1 },
  semantic: {
    status: 'disabled',
    reason: 'not_configured',
    howToConfigure: 'add a semantic section',
    configured: false,
    enabled: false,
    provider: null,
    worker: null,
    projects: [],
  },
};

const searchResult = {
  shape: 'discover',
  requested_mode: 'hybrid',
  used_mode: 'keyword',
  semantic_status: 'disabled',
  semantic_coverage: null,
  scope: { kind: 'project', project_id: 'p_1' },
  query: 'deploy',
  notes: [],
  results: [],
  truncated: false,
};

test('every method has a result schema, and nothing else does', () => {
  expect(Object.keys(RPC_RESULT_SCHEMAS).sort()).toEqual([...RPC_METHOD_NAMES]);
});

describe('session', () => {
  test('a well-formed session passes', () => {
    expect(sessionSchema.parse(session)).toEqual(session);
  });

  test.each<[string, Record<string, unknown>]>([
    ['a missing field', { messageCount: undefined }],
    ['a renamed field', { projectId: undefined, project_id: 'p_1' }],
    ['an unknown lineage', { lineage: 'fork' }],
    ['a Date instead of milliseconds', { startedAt: new Date(1) }],
    ['an extra field', { projectName: 'Alpha' }],
  ])('%s fails', (_why, change) => {
    const drifted: Record<string, unknown> = { ...session, ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete drifted[k];
    expect(sessionSchema.safeParse(drifted).success).toBe(false);
  });
});

describe('index.status', () => {
  test('semantic not configured passes', () => {
    expect(RPC_RESULT_SCHEMAS['index.status'].safeParse(indexStatus).success).toBe(true);
  });

  test.each<[string, unknown]>([
    ['an unknown status', { ...indexStatus, semantic: { ...indexStatus.semantic, status: 'half' } }],
    ['keyword counts missing', { semantic: indexStatus.semantic }],
    [
      'a provider without its model',
      {
        ...indexStatus,
        semantic: {
          ...indexStatus.semantic,
          provider: { provider: 'use-lite', endpoint: 'local:use-lite', dims: 512, remote: false, languages: 'english-only', maxInputTokens: 1, maxBatch: 1, fingerprintId: 1 },
        },
      },
    ],
  ])('%s fails', (_why, value) => {
    expect(RPC_RESULT_SCHEMAS['index.status'].safeParse(value).success).toBe(false);
  });
});

describe('search.session_search', () => {
  test('open objects: an extra field passes', () => {
    expect(RPC_RESULT_SCHEMAS['search.session_search'].safeParse({ ...searchResult, future_field: 1 }).success).toBe(true);
  });

  test.each<[string, unknown]>([
    ['an unknown shape', { ...searchResult, shape: 'dig' }],
    ['an unknown tool error code', { ...searchResult, error: { code: 'oops', message: 'x' } }],
    ['results missing', { ...searchResult, results: undefined }],
    ['a scope kind that is not one of the two', { ...searchResult, scope: { kind: 'everything', project_id: null } }],
  ])('%s fails', (_why, value) => {
    expect(RPC_RESULT_SCHEMAS['search.session_search'].safeParse(value).success).toBe(false);
  });
});

test('conversations.list pages nest sessions', () => {
  const page = { conversations: [{ rootId: 's_1', lastActivity: 2, sessions: [session] }], nextCursor: null, total: 1 };
  expect(RPC_RESULT_SCHEMAS['conversations.list'].safeParse(page).success).toBe(true);
  expect(
    RPC_RESULT_SCHEMAS['conversations.list'].safeParse({ ...page, conversations: [{ rootId: 's_1', lastActivity: 2, sessions: [{ ...session, lineage: 'x' }] }] }).success,
  ).toBe(false);
});

describe('chat.send', () => {
  const outcome = {
    runId: 'run_1',
    sessionId: 's_1',
    userMessageId: 1,
    status: 'failed',
    messageId: null,
    content: null,
    messageIds: [1],
    toolCalls: [],
    rounds: null,
    error: { code: 'chat_model_unreachable', message: 'down', retryable: true },
    startedAt: 1,
    finishedAt: 2,
  };

  test.each<[string, unknown, boolean]>([
    ['started in the background', { runId: 'run_1', sessionId: 's_1', userMessageId: 1 }, true],
    ['a failed run with its chat_* code', outcome, true],
    ['an error code outside the chat_* codes', { ...outcome, error: { ...outcome.error, code: 'session_not_found' } }, false],
    ['an error code that is not in the table', { ...outcome, error: { ...outcome.error, code: 'chat_oops' } }, false],
    ['a run still running is never an outcome', { ...outcome, status: 'running' }, false],
  ])('%s', (_why, value, ok) => {
    expect(RPC_RESULT_SCHEMAS['chat.send'].safeParse(value).success).toBe(ok);
  });
});
