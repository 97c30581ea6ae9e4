/**
 * An import that runs out of disk (issue 21.5): a real SQLite file capped with `PRAGMA
 * max_page_count` fails part-way with a real SQLITE_FULL. The import stops with
 * `ImportAbortedError` (`disk_full`) whose `committed` counts are exactly what the database holds —
 * every batch before the failing one, nothing of it — and the same import run again once there is
 * room imports the rest and skips the committed lines. Both entry points: recall-jsonl (text and
 * file) and the transcript importers (SourceImporter).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { afterEach, describe, expect, test } from 'vitest';
import { SourceImporter } from '../src/apply.js';
import { ImportAbortedError, importJsonlFile, importJsonlText } from '../src/index.js';

const dirs: string[] = [];
const dbs: RecallDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recall-diskfull-'));
  dirs.push(dir);
  return dir;
}

/** A database that can grow by about `extraKiB` more. */
function cappedDb(extraKiB: number): RecallDatabase {
  const db = openDatabase(join(tempDir(), 'recall.db'));
  dbs.push(db);
  const pages = db.raw.pragma('page_count', { simple: true }) as number;
  const pageSize = db.raw.pragma('page_size', { simple: true }) as number;
  db.raw.pragma(`max_page_count = ${pages + Math.ceil((extraKiB * 1024) / pageSize)}`);
  return db;
}

function counts(db: RecallDatabase): { projects: number; sessions: number; messages: number } {
  const one = (sql: string) => db.raw.prepare(sql).pluck().get() as number;
  return { projects: one('select count(*) from projects'), sessions: one('select count(*) from sessions'), messages: one('select count(*) from messages') };
}

/** 1 project, then per session: 1 session line and 20 messages of ~1 KiB. */
function document(sessions: number): string {
  const lines = [JSON.stringify({ kind: 'project', id: 'p_big', name: 'Big' })];
  for (let s = 0; s < sessions; s++) {
    lines.push(JSON.stringify({ kind: 'session', id: `s-${s}`, project_id: 'p_big', title: `session ${s}` }));
    for (let m = 0; m < 20; m++) lines.push(JSON.stringify({ kind: 'message', session_id: `s-${s}`, external_id: `m-${m}`, role: m % 2 ? 'assistant' : 'user', content: `s${s} m${m} ${'word '.repeat(200)}` }));
  }
  return `${lines.join('\n')}\n`;
}

async function abortOf(run: () => Promise<unknown>): Promise<ImportAbortedError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ImportAbortedError);
    return error as ImportAbortedError;
  }
  throw new Error('the import did not stop');
}

describe('recall-jsonl on a full disk', () => {
  test.each([
    ['text (import.jsonl)', (db: RecallDatabase, text: string) => importJsonlText(db, text, { batchLines: 100 })],
    ['file (recall import)', (db: RecallDatabase, text: string) => {
      const path = join(tempDir(), 'big.jsonl');
      writeFileSync(path, text);
      return importJsonlFile(db, path, { batchLines: 100 });
    }],
  ])('%s: stops with disk_full and reports exactly what was committed; a re-run imports the rest', async (_name, run) => {
    const text = document(60); // 1 + 60 × 21 = 1261 lines, ~1.3 MB
    const db = cappedDb(600);
    const error = await abortOf(() => run(db, text));
    expect(error.code).toBe('disk_full');
    expect(error.message).toMatch(/disk .*full/i);
    expect(error.message).not.toMatch(/SQLITE|at .*\.js/);
    const committed = error.committed;
    // Something was committed, not everything, and in whole batches.
    expect(committed.lines).toBeGreaterThan(0);
    expect(committed.lines).toBeLessThan(1261);
    expect(committed.lines % 100).toBe(0);
    expect(committed.lastCommittedLine).toBe(committed.lines);
    expect(error.message).toContain(`up to line ${committed.lastCommittedLine}`);
    // Exactly what is in the database.
    expect(counts(db)).toEqual({ projects: committed.projects, sessions: committed.sessions, messages: committed.messages });
    expect(error.details).toMatchObject({ lines: committed.lines, messages: committed.messages, lastCommittedLine: committed.lastCommittedLine });
    expect(db.raw.pragma('integrity_check', { simple: true })).toBe('ok');
    // Room again: the same import finishes, skipping what is saved.
    db.raw.pragma('max_page_count = 1073741823');
    const rest = await run(db, text);
    expect(rest.errorCount).toBe(0);
    expect(rest.skipped).toBe(committed.projects + committed.messages + committed.sessions);
    expect(counts(db)).toEqual({ projects: 1, sessions: 60, messages: 1200 });
  }, 30_000);
});

describe('transcript importers (SourceImporter) on a full disk', () => {
  test('stops with disk_full; committed counts equal the database', async () => {
    const db = cappedDb(300);
    const importer = await SourceImporter.open(db, { kind: 'none' }, { batchSize: 50 });
    let thrown: unknown = null;
    try {
      for (let s = 0; s < 40 && thrown === null; s++) {
        await importer.add({ kind: 'session', file: 'f.jsonl', line: s * 21 + 1, id: `t-${s}`, parentId: null, lineage: 'root', source: 'claude-code', title: `t ${s}` });
        for (let m = 0; m < 20; m++) await importer.add({ kind: 'message', file: 'f.jsonl', line: s * 21 + m + 2, sessionId: `t-${s}`, role: 'user', content: 'text '.repeat(200), externalId: `e-${m}` });
      }
      await importer.finish();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ImportAbortedError);
    const error = thrown as ImportAbortedError;
    expect(error.code).toBe('disk_full');
    expect(error.committed.lines).toBeGreaterThan(0);
    expect(counts(db)).toEqual({ projects: 0, sessions: error.committed.sessions, messages: error.committed.messages });
  });
});
