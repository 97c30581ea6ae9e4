/**
 * Streaming line reader for transcript files: reads raw bytes from a byte offset, splits on \n and
 * decodes each line as UTF-8 on its own (an invalid byte becomes U+FFFD in that line only, never an
 * error for the file), and reports the byte offset just after every line — the offset live sync
 * persists so a restart resumes exactly there. Memory is bounded by the longest line (a 20 MB tool
 * output is one 20 MB line), never by the file. A last line without its newline is either yielded
 * (`partialLast: 'yield'`, a one-off import reports what it can) or held back (`'hold'`, live sync:
 * the writer is probably still writing it; it is read again next time from the same offset).
 */
import { createReadStream } from 'node:fs';

export interface TextLine {
  /** 1-based line number in the file (counting from `startLine` when resuming). */
  line: number;
  text: string;
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
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--; // tolerate \r\n
  return decoder.decode(buf.subarray(0, end));
}

/**
 * The lines of a file, a chunk's worth at a time (one array per read of about a MiB): consumers
 * pay one async step per chunk rather than per line, which is most of an importer's overhead.
 */
export async function* readLineBatches(path: string, options: ReadLinesOptions = {}): AsyncGenerator<TextLine[]> {
  let offset = options.fromOffset ?? 0;
  let line = options.startLine ?? 1;
  const stream = createReadStream(path, { start: offset, highWaterMark: options.chunkBytes ?? 1 << 20 });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const batch: TextLine[] = [];
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) break;
        const piece = chunk.subarray(start, nl);
        let buf: Buffer;
        if (pendingBytes > 0) {
          pending.push(piece);
          buf = Buffer.concat(pending, pendingBytes + piece.length);
          pending = [];
          pendingBytes = 0;
        } else {
          buf = piece;
        }
        offset += buf.length + 1;
        batch.push({ line: line++, text: decode(buf), endOffset: offset, partial: false });
        start = nl + 1;
      }
      if (start < chunk.length) {
        // Copy: the stream may reuse its chunk buffers.
        const rest = Buffer.from(chunk.subarray(start));
        pending.push(rest);
        pendingBytes += rest.length;
      }
      if (batch.length > 0) yield batch;
    }
    if (pendingBytes > 0 && (options.partialLast ?? 'yield') === 'yield') {
      const buf = Buffer.concat(pending, pendingBytes);
      yield [{ line, text: decode(buf), endOffset: offset + buf.length, partial: true }];
    }
  } finally {
    stream.destroy();
  }
}

/** Line by line (see readLineBatches). */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<TextLine> {
  for await (const batch of readLineBatches(path, options)) yield* batch;
}
