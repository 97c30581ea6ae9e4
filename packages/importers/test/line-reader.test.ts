/**
 * The byte-level line reader every importer reads files through: the cap is exact (a line of
 * MAX_LINE_BYTES is read, one byte more is not; a \r before the newline does not count), an
 * over-cap line is yielded as `text: null` with its byte length and the right end offset (so a
 * resume starts after it), also when it is the unterminated last line, and it is never buffered.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { MAX_LINE_BYTES, readLines, type ReadLinesOptions, type TextLine } from '../src/line-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-line-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function linesOf(content: Buffer | string, options: ReadLinesOptions = {}): Promise<TextLine[]> {
  const file = join(dir, `f${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, content);
  const out: TextLine[] = [];
  for await (const line of readLines(file, { chunkBytes: 64 * 1024, ...options })) out.push(line);
  return out;
}

const summary = (lines: TextLine[]) => lines.map((l) => [l.line, l.text === null ? null : l.text.length, l.bytes, l.endOffset, l.partial]);

describe('readLines', () => {
  test('the cap is exact, and a \\r before the newline is not part of the line', async () => {
    const atCap = 'a'.repeat(MAX_LINE_BYTES);
    const lines = await linesOf(`first\n${atCap}\n${atCap}b\n${atCap}\r\nlast`);
    const capLine = MAX_LINE_BYTES + 1;
    expect(summary(lines)).toEqual([
      [1, 5, 5, 6, false],
      [2, MAX_LINE_BYTES, MAX_LINE_BYTES, 6 + capLine, false],
      [3, null, MAX_LINE_BYTES + 1, 6 + capLine + capLine + 1, false],
      [4, MAX_LINE_BYTES, MAX_LINE_BYTES, 6 + capLine + capLine + 1 + capLine + 1, false],
      [5, 4, 4, 6 + capLine + capLine + 1 + capLine + 1 + 4, true],
    ]);
    expect(lines[3]!.text!.endsWith('\r')).toBe(false);
  });

  test('an over-cap last line without a newline: reported when yielding, held back (offset unchanged) when holding', async () => {
    const content = `ok\n${'x'.repeat(MAX_LINE_BYTES * 2)}`;
    expect(summary(await linesOf(content))).toEqual([
      [1, 2, 2, 3, false],
      [2, null, MAX_LINE_BYTES * 2, 3 + MAX_LINE_BYTES * 2, true],
    ]);
    expect(summary(await linesOf(content, { partialLast: 'hold' }))).toEqual([[1, 2, 2, 3, false]]);
  });

  test('resuming from an offset after an over-cap line continues with the next line', async () => {
    const big = 'y'.repeat(MAX_LINE_BYTES + 10);
    const lines = await linesOf(`${big}\nnext\n`);
    expect(summary(lines)).toEqual([
      [1, null, MAX_LINE_BYTES + 10, MAX_LINE_BYTES + 11, false],
      [2, 4, 4, MAX_LINE_BYTES + 16, false],
    ]);
    const resumed = await linesOf(`${big}\nnext\n`, { fromOffset: lines[0]!.endOffset, startLine: 2 });
    expect(resumed.map((l) => [l.line, l.text])).toEqual([[2, 'next']]);
  });

  test('UTF-8 split across chunks decodes; an invalid byte is U+FFFD in its line only', async () => {
    const text = 'é'.repeat(40_000); // 80 000 bytes: crosses 64 KiB chunks, a character split between two
    const lines = await linesOf(Buffer.concat([Buffer.from(`${text}\n`), Buffer.from([0x61, 0xff, 0x62, 0x0a])]));
    expect(lines.map((l) => l.text)).toEqual([text, 'a\ufffdb']);
    expect(lines[0]!.bytes).toBe(80_000);
  });
});
