/**
 * Project isolation as a property on BOTH storage adapters (one table: a SQLite file and a
 * throwaway PostgreSQL database), the tool built with `createSessionSearchTool({ storage })`. Random
 * worlds are built through the storage ports — projects, project-less sessions, every lineage kind
 * (root, compression, branch, reset, delegation), moves between projects and out of any project,
 * in-place compaction, deletes — with shared vocabulary; random calls of every shape (discover in
 * every mode, browse, read — also of a whole conversation — scroll, also paging inside a message),
 * with and without role filters, with a hostile semantic source that ignores the scope and returns
 * every message of the world. No result, window message or other_message_id leaves the caller's
 * scope, no result has a role the filter excludes, no lineage count describes sessions outside it.
 * The oracle reads through the unscoped storage (the tool's reads run inside its read scope).
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSessionSearchTool, type SemanticHit, type SemanticSource } from '../src/index.js';

const VOCAB = ['backoff', 'retry', 'busy_timeout', 'config.yaml', 'E_CONN_RESET', '蒸鱼', '数据库', '超时', 'deploy', 'jitter', '项目', 'rust'];
const ROLES = MESSAGE_ROLES.filter((r) => r !== 'system') as MessageRole[];

const wordsArb = fc.array(fc.record({ role: fc.constantFrom(...ROLES), words: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 4 });

const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('root' as const), project: fc.integer({ min: -1, max: 2 }), messages: wordsArb }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('compression' as const, 'branch' as const, 'reset' as const, 'delegation' as const), parent: fc.nat(), messages: wordsArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), target: fc.nat(), project: fc.integer({ min: -1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target: fc.nat() }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

const callArb = fc.record({
  caller: fc.nat(),
  shape: fc.constantFrom('discover', 'discover', 'browse', 'read', 'read-conversation', 'scroll', 'scroll-offset'),
  query: fc.oneof(fc.constantFrom(...VOCAB), fc.string({ maxLength: 30 }), fc.array(fc.constantFrom(...VOCAB), { maxLength: 3 }).map((w) => w.join(' '))),
  target: fc.nat(),
  mode: fc.constantFrom('hybrid', 'keyword', 'semantic'),
  roles: fc.option(fc.subarray(ROLES, { minLength: 1 }), { nil: undefined }),
  sort: fc.constantFrom('relevance', 'newest', 'oldest'),
});

const worldArb = fc.record({ projects: fc.integer({ min: 1, max: 3 }), ops: fc.array(opArb, { minLength: 2, maxLength: 12 }), calls: fc.array(callArb, { minLength: 1, maxLength: 5 }) });

interface World {
  storage: Storage;
  projectIds: string[];
  sessionIds: string[];
  messageIds: number[];
}

/** A hostile semantic source: every message of the world, whatever the scope and roles, read through the unscoped storage. */
function everythingSource(w: World, seed: number): SemanticSource {
  return {
    status: () => ({ status: 'ready', coverage: { indexed: 1, total: 1 } }),
    search: async () => {
      const hits: SemanticHit[] = [];
      const order = w.messageIds.map((id, i) => ({ id, k: (i * 2654435761 + seed) % 1009 })).sort((a, b) => a.k - b.k);
      for (const [i, { id }] of order.entries()) {
        const m = await w.storage.messages.find(id);
        if (m) hits.push({ messageId: id, sessionId: m.sessionId, score: 1 - i / (order.length + 1) });
      }
      return hits;
    },
  };
}

async function applyOp(w: World, op: Op): Promise<void> {
  const s = w.storage;
  const pick = (n: number) => (w.sessionIds.length > 0 ? w.sessionIds[n % w.sessionIds.length]! : null);
  const projectOf = (n: number) => (n < 0 ? null : (w.projectIds[n % w.projectIds.length] ?? null));
  let id: string;
  switch (op.op) {
    case 'root':
      id = (await s.sessions.create({ projectId: projectOf(op.project) })).id;
      break;
    case 'compression':
    case 'branch':
    case 'reset':
    case 'delegation': {
      const parent = pick(op.parent);
      if (parent === null) id = (await s.sessions.create({})).id;
      else if (op.op === 'compression') id = (await s.sessions.continueCompressed((await s.sessions.segments(parent)).at(-1) ?? parent)).session.id;
      else if (op.op === 'branch') id = (await s.sessions.branch(parent)).id;
      else if (op.op === 'reset') id = (await s.sessions.reset(parent)).id;
      else id = (await s.sessions.delegate(parent)).id;
      break;
    }
    case 'move': {
      const target = pick(op.target);
      if (target !== null) await s.sessions.move(target, projectOf(op.project));
      return;
    }
    case 'compact': {
      const target = pick(op.target);
      const live = target === null ? [] : (await s.messages.list(target)).filter((m) => m.visibility === 'live');
      if (target !== null && live.length > 0) await s.messages.compact(target, live.at(-1)!.id);
      return;
    }
    case 'delete': {
      const victim = w.messageIds.length > 0 ? w.messageIds[op.target % w.messageIds.length]! : null;
      const state = victim === null ? undefined : (await s.messages.find(victim))?.visibility;
      if (victim !== null && (state === 'live' || state === 'compacted')) await s.messages.delete(victim);
      return;
    }
  }
  w.sessionIds.push(id);
  const inserted = (await s.messages.append(id, op.messages.map((m) => ({ role: m.role, content: m.words.join(' ') })))).messages;
  w.messageIds.push(...inserted.map((m) => m.id));
}

/** The sessions a caller may read, from the unscoped storage: its project's visible sessions, or its own history. */
async function allowedFor(s: Storage, callerId: string): Promise<Set<string>> {
  const caller = await s.sessions.getRecord(callerId);
  if (caller.projectId === null) return new Set(await s.sessions.ownHistory(callerId));
  return new Set((await s.sessions.list({ projectId: caller.projectId, includeArchived: true, limit: 5000 })).map((x) => x.id));
}

const dir = mkdtempSync(join(tmpdir(), 'recall-tool-ports-'));
let cluster: ThrowawayPostgres | undefined;
let sqliteCount = 0;

/** One row per adapter: how to open its storage (once per file) and how many worlds it checks. */
const ADAPTERS: Array<[name: string, open: () => Promise<Storage>, runs: number]> = [
  ['sqlite', () => openSqliteStorage({ kind: 'sqlite', path: join(dir, `isolation-${++sqliteCount}.db`) }), 40],
  ['postgres', async () => openPostgresStorage({ kind: 'postgres', url: (cluster ??= await startThrowawayPostgres()).createDatabase('isolation') }), 12],
];

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(ADAPTERS)('project isolation through the storage ports (property): %s', (_name, open, runs) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await open();
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
  });

  test('no result, window or lineage count leaves the caller scope; role filters hold', { timeout: 180_000 }, async () => {
    let checkedResults = 0;
    let filteredResults = 0;
    let world = 0;
    await fc.assert(
      fc.asyncProperty(worldArb, async (spec) => {
        // One database per adapter; every world gets its own projects, so earlier worlds are other projects' rows.
        world++;
        const w: World = { storage, projectIds: [], sessionIds: [], messageIds: [] };
        for (let i = 0; i < spec.projects; i++) w.projectIds.push((await storage.projects.create({ name: `W${world}P${i}` })).id);
        for (const op of spec.ops) await applyOp(w, op);
        if (w.sessionIds.length === 0) return;
        const tool = createSessionSearchTool({ storage, semantic: everythingSource(w, spec.ops.length) });
        for (const call of spec.calls) {
          const callerId = w.sessionIds[call.caller % w.sessionIds.length]!;
          const allowed = await allowedFor(storage, callerId);
          const targetSession = w.sessionIds[call.target % w.sessionIds.length];
          const targetMessage = w.messageIds.length > 0 ? w.messageIds[call.target % w.messageIds.length] : 999_999_999;
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
          const result = await tool.execute(args, { currentSessionId: callerId });
          if (result.error) expect(['not_found', 'invalid_arguments']).toContain(result.error.code);
          const scrollAnchor = call.shape === 'scroll' ? targetMessage : undefined;
          for (const item of result.results) {
            checkedResults++;
            expect(allowed.has(item.session_id), `leak: ${item.session_id} for caller ${callerId}`).toBe(true);
            for (const id of [...item.window.map((x) => x.message_id), ...(item.other_message_ids ?? [])]) {
              const m = await storage.messages.find(id);
              expect(m && allowed.has(m.sessionId), `leak via window/other_message_ids: message ${id}`).toBe(true);
            }
            const row = (await storage.messages.find(item.message_id))!;
            expect(['live', 'compacted']).toContain(row.visibility);
            expect(row.sessionId).toBe(item.session_id);
            // The caller's own live messages are context, never discover results.
            if (result.shape === 'discover') expect(item.session_id === callerId && row.visibility === 'live').toBe(false);
            expect(allowed.has(item.conversation_id), `conversation ${item.conversation_id} outside the scope`).toBe(true);
            expect(item.segment).toBeGreaterThanOrEqual(1);
            expect(item.segment).toBeLessThanOrEqual(item.segment_count);
            expect(item.segment_count).toBeLessThanOrEqual(allowed.size);
            if (call.roles && call.shape !== 'scroll-offset' && item.message_id !== scrollAnchor) {
              filteredResults++;
              expect(call.roles, `role ${item.role} passed filter ${call.roles.join(',')}`).toContain(item.role);
            }
          }
        }
      }),
      { numRuns: runs },
    );
    // The property must actually have looked at results (and filtered ones), or it proves nothing.
    expect(checkedResults).toBeGreaterThan(runs);
    expect(filteredResults).toBeGreaterThan(runs / 6);
  });
});
