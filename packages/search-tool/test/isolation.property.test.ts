/**
 * Project isolation as a property: for random worlds built by a random sequence of operations —
 * projects, project-less sessions, every lineage kind (root, compression, branch, reset,
 * delegation), moves between projects and out of any project, in-place compaction, deletes — with
 * shared vocabulary across projects, and random calls of every shape (discover, browse, read —
 * also of a whole conversation — and scroll, also paging inside a message) with and without
 * role filters, in every search mode — with a semantic source that ignores the scope and returns
 * every message of the database (other projects, hidden, rewound, deleted rows) — no result, no
 * window message and no other_message_id ever comes from outside the caller's scope, no
 * result has a role the filter excludes, and no lineage count describes sessions outside it. Zero
 * leaks is the only passing figure.
 *
 * Extending: add an operation to `opArb` and its effect to `applyOp`; add argument generators to
 * `callArb` (e.g. more search modes with a scripted semantic source) — the oracle stays the same.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import {
  appendMessages,
  compactMessages,
  createBranch,
  createContinuation,
  createDelegation,
  createProject,
  createReset,
  createSession,
  deleteMessage,
  getSession,
  ownHistorySessionIds,
  setSessionProject,
} from '@recall/store';
import { createSessionSearchTool, type SemanticHit, type SemanticSource } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

const VOCAB = ['backoff', 'retry', 'busy_timeout', 'config.yaml', 'E_CONN_RESET', '蒸鱼', '数据库', '超时', 'deploy', 'jitter', '项目', 'rust'];
const ROLES = MESSAGE_ROLES.filter((r) => r !== 'system') as MessageRole[];

const wordsArb = fc.array(
  fc.record({ role: fc.constantFrom(...ROLES), words: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }) }),
  { minLength: 1, maxLength: 4 },
);

/** One step of building a world. `target`/`parent` pick an existing session modulo the count. */
const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('root' as const), project: fc.integer({ min: -1, max: 2 }), messages: wordsArb }) },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constantFrom('compression' as const, 'branch' as const, 'reset' as const, 'delegation' as const), parent: fc.nat(), messages: wordsArb }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), target: fc.nat(), project: fc.integer({ min: -1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target: fc.nat() }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

const callArb = fc.record({
  caller: fc.nat(),
  shape: fc.constantFrom('discover', 'discover', 'browse', 'read', 'read-conversation', 'scroll', 'scroll-offset'),
  query: fc.oneof(fc.constantFrom(...VOCAB), fc.string({ maxLength: 30 }), fc.array(fc.constantFrom(...VOCAB), { maxLength: 3 }).map((w) => w.join(' ')), fc.constantFrom('busy_time', 'E_CONN', 'onfig.ya')),
  target: fc.nat(),
  mode: fc.constantFrom('hybrid', 'keyword', 'semantic'),
  roles: fc.option(fc.subarray(ROLES, { minLength: 1 }), { nil: undefined }),
  sort: fc.constantFrom('relevance', 'newest', 'oldest'),
});

const worldArb = fc.record({
  projects: fc.integer({ min: 1, max: 3 }),
  ops: fc.array(opArb, { minLength: 2, maxLength: 14 }),
  calls: fc.array(callArb, { minLength: 1, maxLength: 6 }),
});

interface World {
  db: RecallDatabase;
  projectIds: string[];
  sessionIds: string[];
  messageIds: number[];
}

/**
 * A hostile semantic source: it ignores the scope (and roles) and returns every message of the
 * database in a shuffled order. Whatever a semantic implementation gets wrong, the tool's own gate
 * must keep results in scope.
 */
function everythingSource(db: RecallDatabase, seed: number): SemanticSource {
  return {
    status: () => ({ status: 'ready', coverage: { indexed: 1, total: 1 } }),
    search: async () => {
      const rows = db.raw.prepare('select id, session_id from messages order by id').all() as Array<{ id: number; session_id: string }>;
      return rows
        .map((r, i) => ({ r, k: (i * 2654435761 + seed) % 1009 }))
        .sort((a, b) => a.k - b.k)
        .map(({ r }, i): SemanticHit => ({ messageId: r.id, sessionId: r.session_id, score: 1 - i / (rows.length + 1) }));
    },
  };
}

/** A session compresses once; later compressions continue from its newest segment. */
function latestSegment(db: RecallDatabase, id: string): string {
  const next = db.raw.prepare("select id from sessions where parent_session_id = ? and lineage = 'compression'").pluck();
  let current = id;
  for (let child = next.get(current) as string | undefined; child !== undefined; child = next.get(current) as string | undefined) current = child;
  return current;
}

function applyOp(w: World, op: Op): void {
  const pick = (n: number) => (w.sessionIds.length > 0 ? w.sessionIds[n % w.sessionIds.length]! : null);
  const projectOf = (n: number) => (n < 0 ? null : (w.projectIds[n % w.projectIds.length] ?? null));
  let id: string | null = null;
  switch (op.op) {
    case 'root':
      id = createSession(w.db, { projectId: projectOf(op.project) }).id;
      break;
    case 'compression':
    case 'branch':
    case 'reset':
    case 'delegation': {
      const parent = pick(op.parent);
      if (parent === null) id = createSession(w.db, {}).id;
      else if (op.op === 'compression') id = createContinuation(w.db, latestSegment(w.db, parent)).session.id;
      else if (op.op === 'branch') id = createBranch(w.db, parent).id;
      else if (op.op === 'reset') id = createReset(w.db, parent).id;
      else id = createDelegation(w.db, parent).id;
      break;
    }
    case 'move': {
      const target = pick(op.target);
      if (target !== null) setSessionProject(w.db, target, projectOf(op.project));
      return;
    }
    case 'compact': {
      const target = pick(op.target);
      const last = target === null ? undefined : (w.db.raw.prepare("select max(id) from messages where session_id = ? and visibility = 'live'").pluck().get(target) as number | null);
      if (target !== null && last) compactMessages(w.db, target, last);
      return;
    }
    case 'delete': {
      const victim = w.messageIds.length > 0 ? w.messageIds[op.target % w.messageIds.length]! : null;
      const state = victim === null ? undefined : w.db.raw.prepare('select visibility from messages where id = ?').pluck().get(victim);
      if (victim !== null && (state === 'live' || state === 'compacted')) deleteMessage(w.db, victim);
      return;
    }
  }
  w.sessionIds.push(id);
  if ('messages' in op) {
    const inserted = appendMessages(w.db, id, op.messages.map((m) => ({ role: m.role, content: m.words.join(' ') }))).messages;
    w.messageIds.push(...inserted.map((m) => m.id));
  }
}

describe('project isolation (property)', () => {
  test('no result, window or lineage count leaves the caller scope; role filters hold', { timeout: 180_000 }, async () => {
    let checkedResults = 0;
    let filteredResults = 0;
    await fc.assert(
      fc.asyncProperty(worldArb, async (spec) => {
        const db = tempDb();
        const w: World = { db, projectIds: Array.from({ length: spec.projects }, (_, i) => createProject(db, { name: `P${i}` }).id), sessionIds: [], messageIds: [] };
        for (const op of spec.ops) applyOp(w, op);
        if (w.sessionIds.length === 0) return;
        const tool = createSessionSearchTool({ db, semantic: everythingSource(db, spec.ops.length) });
        for (const call of spec.calls) {
          const caller = getSession(db, w.sessionIds[call.caller % w.sessionIds.length]!);
          const allowed = new Set(
            caller.projectId === null
              ? ownHistorySessionIds(db, caller.id)
              : (db.raw.prepare('select id from sessions where project_id = ? and hidden = 0').pluck().all(caller.projectId) as string[]),
          );
          const targetSession = w.sessionIds[call.target % w.sessionIds.length];
          const targetMessage = w.messageIds.length > 0 ? w.messageIds[call.target % w.messageIds.length] : 999_999;
          const common = { ...(call.roles ? { role_filter: call.roles } : {}), sort: call.sort };
          const args =
            call.shape === 'discover'
              ? { query: call.query, search_mode: call.mode, ...common }
              : call.shape === 'read'
                ? { session_id: targetSession, ...common }
                : call.shape === 'read-conversation'
                  ? { session_id: targetSession, conversation: true, ...common }
                  : call.shape === 'scroll'
                    ? { around_message_id: targetMessage, ...common }
                    : call.shape === 'scroll-offset'
                      ? { around_message_id: targetMessage, offset: 1 }
                      : common;
          const result = await tool.execute(args, { currentSessionId: caller.id });
          if (result.error) expect(['not_found', 'invalid_arguments']).toContain(result.error.code);
          const scrollAnchor = call.shape === 'scroll' ? targetMessage : undefined;
          for (const item of result.results) {
            checkedResults++;
            expect(allowed.has(item.session_id), `leak: ${item.session_id} for caller ${caller.id}`).toBe(true);
            const ids = item.window.map((x) => x.message_id);
            const windowSessions = db.raw.prepare(`select distinct session_id from messages where id in (${ids.map(() => '?').join(',') || 'null'})`).pluck().all(...ids) as string[];
            for (const s of windowSessions) expect(allowed.has(s), `window leak: ${s}`).toBe(true);
            const others = item.other_message_ids ?? [];
            const otherSessions = db.raw.prepare(`select distinct session_id from messages where id in (${others.map(() => '?').join(',') || 'null'})`).pluck().all(...others) as string[];
            for (const s of otherSessions) expect(allowed.has(s), `leak via other_message_ids: ${s}`).toBe(true);
            const row = db.raw.prepare('select visibility, session_id from messages where id = ?').get(item.message_id) as { visibility: string; session_id: string };
            expect(['live', 'compacted']).toContain(row.visibility);
            expect(row.session_id).toBe(item.session_id);
            // The caller's own live messages are context, never discover results.
            if (result.shape === 'discover') expect(item.session_id === caller.id && row.visibility === 'live').toBe(false);
            // Lineage never counts sessions outside the scope.
            const segmentsOfConversation = (db.raw.prepare("select count(*) from sessions where id = ? or (parent_session_id is not null and lineage = 'compression')").pluck().get(item.conversation_id) as number);
            expect(allowed.has(item.conversation_id), `conversation ${item.conversation_id} outside the scope`).toBe(true);
            expect(item.segment).toBeGreaterThanOrEqual(1);
            expect(item.segment).toBeLessThanOrEqual(item.segment_count);
            expect(item.segment_count).toBeLessThanOrEqual(Math.min(allowed.size, segmentsOfConversation));
            if (call.roles && call.shape !== 'scroll-offset' && item.message_id !== scrollAnchor) {
              filteredResults++;
              expect(call.roles, `role ${item.role} passed filter ${call.roles.join(',')}`).toContain(item.role);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
    // The property must actually have looked at results (and filtered ones), or it proves nothing.
    expect(checkedResults).toBeGreaterThan(50);
    expect(filteredResults).toBeGreaterThan(10);
  });
});
