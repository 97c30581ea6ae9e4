/**
 * A line far over the importers' line cap (MAX_LINE_BYTES) in a real file, imported by the built CLI
 * in a child process: `recall import big.jsonl` and `recall import --from claude-code` skip it with
 * `line_too_long` (its line number and length in bytes), import every line before and after it, and
 * stay under 200 MB of resident memory (the process's own high-water mark, VmHWM) although the line
 * is 600 MB — longer than the longest string V8 can hold (0x1fffffe8 characters, ~512 MiB), which
 * is what crashed both paths before. The files are written in 4 MiB chunks, never held in memory.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { ccLine } from '@recall/config/source-fixtures';
import { MAX_LINE_BYTES } from '@recall/importers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, CLI_PATH, cleanupTemp, json, runNode, tempDir } from './cli-helpers.js';

beforeAll(() => assertCliBuilt());
afterAll(() => cleanupTemp());

const HUGE = 600 * 1024 * 1024;
const RSS_LIMIT = 200 * 1024 * 1024;

/** Writes `head`, then a JSON string value of `HUGE - head - tail` bytes of 'x', then `tail` + "\n". Returns the line's byte length. */
function writeHugeLine(fd: number, head: string, tail: string): number {
  const chunk = Buffer.alloc(4 * 1024 * 1024, 'x');
  const headBytes = Buffer.byteLength(head);
  const tailBytes = Buffer.byteLength(tail);
  writeSync(fd, head);
  let left = HUGE - headBytes - tailBytes;
  while (left > 0) {
    const n = Math.min(left, chunk.length);
    writeSync(fd, chunk, 0, n);
    left -= n;
  }
  writeSync(fd, `${tail}\n`);
  return HUGE;
}

/** A preload that writes the process's peak RSS (VmHWM, bytes) to a file when it exits. */
function rssProbe(dir: string): { preload: string; out: string } {
  const out = join(dir, 'rss.txt');
  const preload = join(dir, 'rss-probe.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => { const kb = /VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'));` +
      ` require('fs').writeFileSync(${JSON.stringify(out)}, String(kb ? Number(kb[1]) * 1024 : process.resourceUsage().maxRSS * 1024)); });\n`,
  );
  return { preload, out };
}

async function importWithProbe(dir: string, args: string[]): Promise<{ code: number | null; summary: Record<string, unknown>; rss: number; stderr: string }> {
  const { preload, out } = rssProbe(dir);
  const result = await runNode(['--require', preload, CLI_PATH, ...args, '--json'], { timeoutMs: 120_000 });
  const { readFileSync } = await import('node:fs');
  return { code: result.code, summary: json(result), rss: Number(readFileSync(out, 'utf8')), stderr: result.stderr };
}

function count(home: string, sql: string): number {
  const db = openDatabase(profileDatabasePath(home, 'default'), { readonly: true });
  try {
    return db.raw.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('a 600 MB line', () => {
  test('the cap is a few MiB', () => {
    expect(MAX_LINE_BYTES).toBe(8 * 1024 * 1024);
    expect(HUGE).toBeGreaterThan(0x1fffffe8);
  });

  test('recall import FILE.jsonl: line_too_long, the lines around it imported, memory bounded', async () => {
    const dir = tempDir('recall-huge-jsonl-');
    const home = join(dir, 'home');
    const file = join(dir, 'big.jsonl');
    const fd = openSync(file, 'w');
    writeSync(fd, `${JSON.stringify({ kind: 'session', id: 's-big', title: 'big' })}\n`);
    writeSync(fd, `${JSON.stringify({ kind: 'message', session_id: 's-big', external_id: 'm1', role: 'user', content: 'before the huge line' })}\n`);
    const bytes = writeHugeLine(fd, '{"kind":"message","session_id":"s-big","external_id":"m-huge","role":"tool","content":"', '"}');
    writeSync(fd, `${JSON.stringify({ kind: 'message', session_id: 's-big', external_id: 'm2', role: 'assistant', content: 'after the huge line' })}\n`);
    closeSync(fd);

    const r = await importWithProbe(dir, ['import', file, '--home', home]);
    expect(r.code, r.stderr).toBe(1); // import_line_errors: some line was refused, the valid ones are in
    expect(r.summary).toMatchObject({ lines: 4, sessions: 1, messages: 2, errorCount: 1 });
    expect(r.summary.errors).toEqual([{ line: 3, code: 'line_too_long', message: expect.stringContaining(`${bytes} bytes`) }]);
    expect(count(home, "select count(*) from messages where session_id = 's-big'")).toBe(2);
    expect(r.rss, `peak RSS ${Math.round(r.rss / 1048576)} MiB`).toBeLessThan(RSS_LIMIT);
  }, 120_000);

  test('recall import --from claude-code: line_too_long, the lines around it imported, memory bounded', async () => {
    const dir = tempDir('recall-huge-cc-');
    const home = join(dir, 'home');
    const sid = '5b0c1c2e-0000-4000-8000-00000000a600';
    const folder = join(dir, 'projects', '-work-huge');
    mkdirSync(folder, { recursive: true });
    const fd = openSync(join(folder, `${sid}.jsonl`), 'w');
    writeSync(fd, `${ccLine(sid, 'u-1', 'user', 'cat the huge log')}\n`);
    const head = JSON.stringify({ parentUuid: 'u-1', isSidechain: false, cwd: '/work/huge', sessionId: sid, type: 'user', uuid: 'u-2', timestamp: '2025-09-01T10:00:00.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_huge', content: '' }] } });
    const cut = head.lastIndexOf('""') + 1; // inside the empty content string
    const bytes = writeHugeLine(fd, head.slice(0, cut), head.slice(cut));
    writeSync(fd, `${ccLine(sid, 'u-3', 'assistant', 'The log ends normally.')}\n`);
    closeSync(fd);

    const r = await importWithProbe(dir, ['import', '--from', 'claude-code', join(dir, 'projects'), '--home', home]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.summary).toMatchObject({ sessions: 1, messages: 2, errorCount: 1 });
    expect(r.summary.errors).toEqual([expect.objectContaining({ line: 2, code: 'line_too_long', message: expect.stringContaining(`${bytes} bytes`) })]);
    expect(count(home, `select count(*) from messages where session_id = '${sid}'`)).toBe(2);
    expect(r.rss, `peak RSS ${Math.round(r.rss / 1048576)} MiB`).toBeLessThan(RSS_LIMIT);
  }, 120_000);
});
