/**
 * Streaming line reader for transcript and recall-jsonl files: reads raw bytes from a byte offset,
 * splits on \n and decodes each line as UTF-8 on its own (an invalid byte becomes U+FFFD in that
 * line only, never an error for the file), and reports the byte offset just after every line — the
 * offset live sync persists so a restart resumes exactly there.
 *
 * Lines are capped at MAX_LINE_BYTES: a longer line is never buffered nor turned into a string —
 * its bytes are counted and dropped as they stream past, and it is yielded as `text: null` with its
 * length, so the caller reports `line_too_long` and carries on with the next line. Memory is
 * therefore bounded by the cap plus one read chunk, whatever the file holds. A last line without its
 * newline is either yielded (`partialLast: 'yield'`, a one-off import reports what it can) or held
 * back (`'hold'`, live sync: the writer is probably still writing it; it is read again next time
 * from the same offset).
 */
import { createReadStream } from 'node:fs';

/** The longest line (in bytes, without its newline) any importer reads; a longer one is skipped as `line_too_long`. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export interface TextLine {
  /** 1-based line number in the file (counting from `startLine` when resuming). */
  line: number;
  /** The decoded line, or null when it is longer than the cap (it was never read into memory). */
  text: string | null;
  /** Length of the line in bytes, without its newline (and without a trailing \r). */
  bytes: number;
  /** Byte offset just after this line's newline (where the next read would start). */
  endOffset: number;
  /** True for a last line that had no newline (only with partialLast: 'yield'). */
  partial: boolean;
}

export interface ReadLinesOptions {
  /** Byte offset to start from (a line start). Default 0. */
  fromOffset?: number;
  /** Line number of the line at fromOffset. Default 1. */
  startLine?: number;
  partialLast?: 'yield' | 'hold';
  /** Read chunk size (bytes). */
  chunkBytes?: number;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

function decode(buf: Buffer): string {
  return decoder.decode(buf);
}

/** The message of a `line_too_long` error (the same for every importer). */
export function lineTooLongMessage(bytes: number): string {
  return `Line is ${bytes} bytes, over the ${MAX_LINE_BYTES / (1024 * 1024)} MiB limit (${MAX_LINE_BYTES} bytes); skipped.`;
}

/**
 * The lines of a file, a chunk's worth at a time (one array per read of about a MiB): consumers
 * pay one async step per chunk rather than per line, which is most of an importer's overhead.
 */
export async function* readLineBatches(path: string, options: ReadLinesOptions = {}): AsyncGenerator<TextLine[]> {
  let offset = options.fromOffset ?? 0;
  let line = options.startLine ?? 1;
  const stream = createReadStream(path, { start: offset, highWaterMark: options.chunkBytes ?? 1 << 20 });
  // The current line's bytes so far (only while it is within the cap), and its length in bytes.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  // A line's trailing \r is not part of it; `lastByte` is the line's last byte so far.
  let lastByte = -1;
  const finish = (partial: boolean): TextLine => {
    const total = pendingBytes;
    const crlf = lastByte === 0x0d ? 1 : 0;
    let text: string | null = null;
    if (!tooLong) {
      const buf = pending.length === 1 ? pending[0]! : Buffer.concat(pending, total);
      text = decode(buf.subarray(0, total - crlf));
    }
    offset += total + (partial ? 0 : 1);
    const out: TextLine = { line: line++, text, bytes: total - crlf, endOffset: offset, partial };
    pending = [];
    pendingBytes = 0;
    tooLong = false;
    lastByte = -1;
    return out;
  };
  const append = (piece: Buffer, copy: boolean): void => {
    if (piece.length === 0) return;
    pendingBytes += piece.length;
    lastByte = piece[piece.length - 1]!;
    if (tooLong) return;
    // +1: a trailing \r may still be dropped, so one byte over is not yet too long.
    if (pendingBytes > MAX_LINE_BYTES + 1) {
      tooLong = true;
      pending = [];
      return;
    }
    // Copy what stays pending: the stream may reuse its chunk buffers.
    pending.push(copy ? Buffer.from(piece) : piece);
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const batch: TextLine[] = [];
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) break;
        append(chunk.subarray(start, nl), false);
        const done = finish(false);
        if (done.text !== null && done.bytes > MAX_LINE_BYTES) done.text = null; // \r\n line of exactly cap+1 bytes
        batch.push(done);
        start = nl + 1;
      }
      if (start < chunk.length) append(chunk.subarray(start), true);
      if (batch.length > 0) yield batch;
    }
    if (pendingBytes > 0 && (options.partialLast ?? 'yield') === 'yield') {
      const done = finish(true);
      if (done.text !== null && done.bytes > MAX_LINE_BYTES) done.text = null;
      yield [done];
    }
  } finally {
    stream.destroy();
  }
}

/** Line by line (see readLineBatches). */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<TextLine> {
  for await (const batch of readLineBatches(path, options)) yield* batch;
}
