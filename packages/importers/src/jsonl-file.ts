/**
 * The shared read loop of the JSONL transcript importers (Claude Code, Codex): streams a file's lines
 * in batches from an offset, skips blank lines, reports a line that is not a JSON object as an
 * `invalid_json` error record with its line number, a line over MAX_LINE_BYTES as `line_too_long`
 * (never read into memory, see line-reader.ts), hands every object to the format's mapper, and
 * reports each line's end offset so live sync can persist where it stopped.
 */
import { lineTooLongMessage, readLineBatches, type ReadLinesOptions } from './line-reader.js';
import { isObject, type SourceRecord } from './records.js';

export async function* readJsonlRecords(
  file: string,
  mapObject: (rec: Record<string, unknown>, line: number) => Iterable<SourceRecord>,
  lineOptions: ReadLinesOptions = {},
  onLine?: (endOffset: number, line: number) => void,
): AsyncGenerator<SourceRecord[]> {
  for await (const lines of readLineBatches(file, lineOptions)) {
    const out: SourceRecord[] = [];
    for (const { line, text, bytes, endOffset } of lines) {
      if (text === null) {
        out.push({ kind: 'error', file, line, code: 'line_too_long', message: lineTooLongMessage(bytes) });
        onLine?.(endOffset, line);
        continue;
      }
      // Blank lines are skipped; trim() only on short lines (it would copy a multi-MiB one).
      if (text.length > 0 && (text.length > 8 || text.trim() !== '')) {
        let rec: unknown;
        try {
          rec = JSON.parse(text);
        } catch (error) {
          rec = error as Error;
        }
        if (rec instanceof Error) out.push({ kind: 'error', file, line, code: 'invalid_json', message: `Not valid JSON: ${rec.message}`.slice(0, 300) });
        else if (!isObject(rec)) out.push({ kind: 'error', file, line, code: 'invalid_json', message: 'Each line must be a JSON object.' });
        else for (const r of mapObject(rec, line)) out.push(r);
      }
      onLine?.(endOffset, line);
    }
    yield out;
  }
}
