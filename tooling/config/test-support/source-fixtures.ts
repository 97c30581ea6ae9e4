/**
 * Agent-history fixtures for the importer tests (packages/importers) and the CLI's `recall import
 * --from` / `recall sync` tests (apps/cli): copies of the committed fixtures in
 * packages/importers/test/fixtures (claude-code, codex, hermes/state.sql) in a temp folder, a Hermes
 * state.db built from the SQL (with better-sqlite3 directly — test code only; the product opens
 * SQLite only through openDatabase), a 20 MB tool output and Claude Code folders of any size,
 * generated on the fly.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

/** The committed fixture files (read by path: test data of @recall/importers, used by the CLI's tests too). */
export const FIXTURES = fileURLToPath(new URL('../../../packages/importers/test/fixtures/', import.meta.url));

export const CC_ALPHA = '5b0c1c2e-0000-4000-8000-00000000a001';
export const CC_BETA = '5b0c1c2e-0000-4000-8000-00000000b001';
export const CODEX_NEW = '0199a5e1-0000-7000-8000-00000000c001';
export const CODEX_OLD = '0198f000-0000-7000-8000-00000000d001';

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

/** A Claude Code session file whose one tool result is `bytes` long (generated, never committed). */
export function bigToolOutputFile(dir: string, bytes: number): { path: string; sessionId: string } {
  const sessionId = '5b0c1c2e-0000-4000-8000-0000000b1900';
  const folder = join(dir, 'big', '-work-big');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${sessionId}.jsonl`);
  writeFileSync(path, `${ccLine(sessionId, 'u-big-1', 'user', 'cat the huge log')}\n`);
  const output = 'x'.repeat(bytes - 40) + ' END-OF-HUGE-LOG';
  appendFileSync(
    path,
    `${JSON.stringify({ parentUuid: 'u-big-1', isSidechain: false, cwd: '/work/big', sessionId, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: output }] }, uuid: 'u-big-2', timestamp: '2025-09-01T10:00:00.000Z' })}\n`,
  );
  appendFileSync(path, `${ccLine(sessionId, 'u-big-3', 'assistant', 'The log ends normally.')}\n`);
  return { path: join(dir, 'big'), sessionId };
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
