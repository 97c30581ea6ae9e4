/**
 * The importers on both storage adapters (a real SQLite file and a throwaway PostgreSQL database):
 * the same fixtures — Claude Code and Codex transcripts, a Hermes state.db, recall-jsonl with and
 * without refused lines — imported into each give the same projects, sessions (lineage, ownership,
 * visibility) and messages, the same summaries and line errors; a re-import writes nothing on
 * either; a refused line writes nothing; the dry run plans the same on both and writes nothing;
 * hostSession finds the same continuation. Several gateways live-syncing the same transcripts into
 * one team database (LiveSync, each with its own pool and checkpoints, passes run concurrently) store
 * each project, session and message once: the rows equal those of one sync alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { copyFixture, FIXTURES, hermesDb, CC_ALPHA } from '@recall/config/source-fixtures';
import type { Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { hostSession, importHermes, importJsonlFile, importTranscripts, LiveSync, transcriptFiles, type ProjectMapping, type SourceImportSummary } from '../src/index.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'recall-import-backends-'));
  dirs.push(dir);
  return dir;
};
let cluster: ThrowawayPostgres | undefined;
beforeAll(async () => {
  cluster = await startThrowawayPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const BACKENDS: Record<'sqlite' | 'postgres', () => Promise<Storage>> = {
  sqlite: () => openSqliteStorage({ kind: 'sqlite', path: join(tempDir(), 'recall.db') }),
  postgres: () => openPostgresStorage({ kind: 'postgres', url: cluster!.createDatabase('recall') }),
};
async function fresh(kind: 'sqlite' | 'postgres'): Promise<Storage> {
  const s = await BACKENDS[kind]();
  opened.push(s);
  return s;
}

/** A time the import itself chose (a source line without a timestamp gets the time of the import). */
const STARTED = Date.now();
const at = (ms: number | null): number | string | null => (ms !== null && ms >= STARTED ? 'import time' : ms);

/** Everything a storage holds, with project ids replaced by names (ids are random per backend). */
async function snapshot(s: Storage): Promise<unknown> {
  const projects = await s.projects.list({ includeArchived: true });
  const nameOf = new Map(projects.map((p) => [p.id, p.name]));
  const sessions = (await s.sessions.list({ includeArchived: true, includeHidden: true, limit: 5000 })).sort((a, b) => a.id.localeCompare(b.id));
  return {
    projects: projects.map((p) => ({ name: p.name, slug: p.slug, archived: p.archived, folders: p.folders })).sort((a, b) => a.name.localeCompare(b.name)),
    sessions: await Promise.all(
      sessions.map(async (x) => ({
        id: x.id,
        project: x.projectId === null ? null : nameOf.get(x.projectId),
        lineage: x.lineage,
        parent: x.parentSessionId,
        source: x.source,
        title: x.title,
        cwd: x.cwd,
        model: x.model,
        startedAt: at(x.startedAt),
        endedAt: at(x.endedAt),
        endReason: x.endReason,
        hidden: x.hidden,
        archived: x.archived,
        messages: (await s.messages.list(x.id, { includeHidden: true, limit: 10_000 })).map((m) => [m.externalId, m.role, m.visibility, at(m.createdAt), m.toolName, m.toolCallId, m.content]),
      })),
    ),
  };
}

/** A summary without what differs by backend on purpose (project ids of perProject, timings). */
function comparable(s: SourceImportSummary): unknown {
  return { ...s, perProject: s.perProject.map((p) => ({ ...p, project: p.project.startsWith('p_') ? 'p' : p.project })).sort((a, b) => `${a.name}`.localeCompare(`${b.name}`)) };
}

/** Imports every fixture into `s`; returns the summaries. */
async function importAll(s: Storage, dir: string, options: { dryRun?: boolean } = {}): Promise<unknown[]> {
  const mapping: ProjectMapping = { kind: 'per-folder' };
  const cc = await importTranscripts(s, 'claude-code', transcriptFiles('claude-code', join(dir, 'claude-code')), { mapping, ...options });
  const codex = await importTranscripts(s, 'codex', transcriptFiles('codex', join(dir, 'codex')), { mapping, ...options });
  const hermes = await importHermes(s, join(dir, 'state.db'), { mapping, ...options });
  const out: unknown[] = [comparable(cc), comparable(codex), comparable(hermes)];
  if (!options.dryRun) {
    out.push(await importJsonlFile(s, join(FIXTURES, 'small.jsonl')));
    out.push(await importJsonlFile(s, join(FIXTURES, 'broken.jsonl')));
  }
  // Generated project ids (`p_` + 12) differ by backend, also inside error messages.
  return JSON.parse(JSON.stringify(out).replace(/\bp_[0-9a-z]{12}\b/g, 'p_generated')) as unknown[];
}

function fixtures(): string {
  const dir = tempDir();
  copyFixture('claude-code', join(dir, 'claude-code'));
  copyFixture('codex', join(dir, 'codex'));
  hermesDb(join(dir, 'state.db'));
  return dir;
}

describe('importers on SQLite and PostgreSQL', () => {
  test('the same fixtures give the same rows and summaries on both; a re-import writes nothing on either', async () => {
    const dir = fixtures();
    const results: Record<string, { first: unknown[]; again: unknown[]; before: unknown; after: unknown; host: string }> = {};
    for (const kind of ['sqlite', 'postgres'] as const) {
      const s = await fresh(kind);
      const first = await importAll(s, dir);
      const before = await snapshot(s);
      const again = await importAll(s, dir);
      results[kind] = { first, again, before, after: await snapshot(s), host: (await hostSession(s, CC_ALPHA)).id };
    }
    const { sqlite, postgres } = results;
    expect(postgres!.before).toEqual(sqlite!.before);
    expect(postgres!.first).toEqual(sqlite!.first);
    expect(postgres!.again).toEqual(sqlite!.again);
    expect(postgres!.host).toBe(sqlite!.host);
    expect(sqlite!.host).toBe(`${CC_ALPHA}:c1`);
    // Something was imported, and the re-run changed nothing anywhere.
    const first = sqlite!.first as Array<{ messages: number; sessions: number; errorCount: number }>;
    expect(first.map((s) => s.messages).every((n) => n > 0)).toBe(true);
    expect(first[4]!.errorCount).toBeGreaterThan(0); // broken.jsonl: refused lines, reported
    for (const kind of ['sqlite', 'postgres'] as const) {
      expect(results[kind]!.after).toEqual(results[kind]!.before);
      for (const s of results[kind]!.again as Array<{ messages: number; sessions: number; projectsCreated?: number; projects?: number }>) {
        expect(s.messages).toBe(0);
        expect(s.sessions).toBe(0);
        expect(s.projectsCreated ?? s.projects).toBe(0);
      }
    }
  }, 120_000);

  test.each(['sqlite', 'postgres'] as const)('%s: a refused line writes nothing, the rest of its batch is imported', async (kind) => {
    const s = await fresh(kind);
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    const path = join(dir, 'refused.jsonl');
    const lines = [
      { kind: 'project', id: 'p_x', name: 'X' },
      { kind: 'session', id: 's1', project_id: 'p_x', title: 'one' },
      { kind: 'message', session_id: 's1', external_id: 'm1', role: 'user', content: 'kept before' },
      { kind: 'session', id: 's2', project_id: 'p_missing', title: 'refused: no such project' },
      { kind: 'message', session_id: 's2', external_id: 'm2', role: 'user', content: 'refused: no session' },
      { kind: 'session', id: 's3', lineage: 'compression', parent_session_id: 's1' },
      { kind: 'session', id: 's4', lineage: 'compression', parent_session_id: 's1' },
      { kind: 'message', session_id: 's1', external_id: 'm3', role: 'assistant', content: 'kept after' },
    ];
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const summary = await importJsonlFile(s, path, { batchLines: 100 });
    expect(summary.errors.map((e) => [e.line, e.code])).toEqual([[4, 'project_not_found'], [5, 'session_not_found'], [7, 'session_already_compressed']]);
    expect(summary).toMatchObject({ projects: 1, sessions: 2, messages: 2 });
    expect(await s.sessions.find('s2')).toBeUndefined();
    expect(await s.sessions.find('s4')).toBeUndefined();
    expect((await s.messages.list('s1')).map((m) => m.externalId)).toEqual(['m1', 'm3']);
  }, 60_000);

  test('the dry run plans the same on both and writes nothing', async () => {
    const dir = fixtures();
    const plans: Record<string, unknown> = {};
    for (const kind of ['sqlite', 'postgres'] as const) {
      const s = await fresh(kind);
      plans[kind] = await importAll(s, dir, { dryRun: true });
      expect(await s.projects.list({ includeArchived: true })).toEqual([]);
      expect(await s.sessions.list({ includeHidden: true, includeArchived: true })).toEqual([]);
    }
    expect(plans.postgres).toEqual(plans.sqlite);
  }, 60_000);
});

describe('live sync of one source by several gateways into one team database', () => {
  test('three LiveSyncs passing concurrently store every row once, as one sync alone does', async () => {
    const dir = fixtures();
    const sources = [
      { format: 'claude-code' as const, path: join(dir, 'claude-code') },
      { format: 'codex' as const, path: join(dir, 'codex') },
    ];
    const mapping: ProjectMapping = { kind: 'per-folder' };
    const alone = await fresh('postgres');
    await new LiveSync({ db: alone, statePath: join(tempDir(), 'sync-state.json'), sources, mapping }).syncOnce();
    const url = cluster!.createDatabase('recall');
    const gateways = await Promise.all([0, 1, 2].map(async () => {
      const storage = await openPostgresStorage({ kind: 'postgres', url });
      opened.push(storage);
      return new LiveSync({ db: storage, statePath: join(tempDir(), 'sync-state.json'), sources, mapping });
    }));
    const passes = await Promise.all(gateways.map((g) => g.syncOnce()));
    expect(passes.map((p) => p.errors)).toEqual([0, 0, 0]);
    const again = await Promise.all(gateways.map((g) => g.syncOnce()));
    const shared = opened.at(-1)!;
    const rows = await snapshot(shared);
    expect(rows).toEqual(await snapshot(alone));
    // Something was there to duplicate, and the second passes found nothing new.
    expect((rows as { sessions: unknown[] }).sessions.length).toBeGreaterThan(0);
    expect(passes.reduce((n, p) => n + p.messages, 0)).toBeGreaterThan(0);
    expect(again.map((p) => p.messages)).toEqual([0, 0, 0]);
  }, 120_000);
});
