/**
 * Test support for the CLI tests of `recall import --from` and `recall sync`: copies of the
 * importers' committed fixtures (packages/importers/test/fixtures/claude-code, codex,
 * hermes/state.sql) in a temp folder, a Hermes state.db built from the SQL (with better-sqlite3
 * directly — test code only; the product opens SQLite only through openDatabase), and a generated
 * Claude Code folder of any size. packages/importers/test/support/source-fixtures.ts has the
 * library tests' counterpart.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FIXTURES } from '../cli-helpers.js';

export const CC_ALPHA = '5b0c1c2e-0000-4000-8000-00000000a001';
export const CC_BETA = '5b0c1c2e-0000-4000-8000-00000000b001';

export function copyFixture(name: 'claude-code' | 'codex', dir: string): string {
  const target = join(dir, name);
  cpSync(join(FIXTURES, name), target, { recursive: true });
  return target;
}

export function hermesDb(path: string, sql = readFileSync(join(FIXTURES, 'hermes', 'state.sql'), 'utf8')): string {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return path;
}

/** Runs SQL against a Hermes fixture db (e.g. to simulate Hermes compacting or appending). */
export function hermesExec(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

export function ccLine(sessionId: string, uuid: string, role: 'user' | 'assistant', text: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: '/work/gen',
    sessionId,
    version: '2.0.14',
    gitBranch: 'main',
    type: role,
    message: role === 'user' ? { role, content: text } : { id: `msg_${uuid}`, type: 'message', role, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
    uuid,
    timestamp: new Date(1_756_000_000_000 + Number.parseInt(uuid.replace(/\D/g, '').slice(-9) || '0', 10) * 1000).toISOString(),
    ...extra,
  });
}

/** `sessions` files of `perSession` messages each under one Claude Code project folder. */
export function generateClaudeCodeFolder(dir: string, sessions: number, perSession: number): string {
  const folder = join(dir, 'generated', '-work-gen');
  mkdirSync(folder, { recursive: true });
  for (let s = 0; s < sessions; s++) {
    const sessionId = `6c0d0000-0000-4000-8000-${String(s).padStart(12, '0')}`;
    const lines: string[] = [];
    for (let m = 0; m < perSession; m++) {
      const role = m % 2 === 0 ? 'user' : 'assistant';
      lines.push(ccLine(sessionId, `g${s}-${m}`, role, `${role} message ${m} of session ${s} about topic${m % 97} and the retry budget ${s * 7 + m}`));
    }
    writeFileSync(join(folder, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  }
  return join(dir, 'generated');
}
