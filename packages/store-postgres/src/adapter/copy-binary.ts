/**
 * `COPY (query) TO STDOUT (FORMAT binary)` on one client, its tuples handed to a callback as they
 * arrive (a pg Submittable: the client's query queue runs it like any statement, inside the
 * transaction open on that client). Why not a binary-format FETCH: pg-protocol 1.x decodes every
 * DataRow field as a UTF-8 string, and pg's Result turns binary fields back into bytes with
 * `Buffer.from(string)` — lossy for arbitrary bytes such as float4 components. CopyData messages
 * arrive as raw bytes, so the rows travel and are read in PostgreSQL's binary send forms (a vector
 * is int16 dims, int16 unused, float4 big-endian each) without any text in between. Memory stays
 * bounded: each message is decoded when it arrives (decoding overlaps the transfer); a tuple split
 * across messages is carried over.
 */
import type pg from 'pg';

/** The binary COPY signature ("PGCOPY\n\377\r\n\0"), then int32 flags and int32 header-extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Called once per tuple: `buf` holds its fields, field i at `at[i]` with `len[i]` bytes (-1: null).
 * Both arrays are reused for the next tuple; `buf` is only valid during the call.
 */
export type CopyTupleHandler = (buf: Buffer, at: Int32Array, len: Int32Array) => void;

type Connection = { query(text: string): void };

/** One binary COPY TO STDOUT of `fields` columns; `done` resolves with the tuple count after the server's ReadyForQuery. */
export class BinaryCopyOut {
  readonly done: Promise<number>;
  private resolve!: (n: number) => void;
  private reject!: (error: unknown) => void;
  private readonly at: Int32Array;
  private readonly len: Int32Array;
  private carry: Buffer | null = null;
  private header = false;
  private ended = false;
  private tuples = 0;
  private failure: unknown = null;

  constructor(
    private readonly text: string,
    private readonly fields: number,
    private readonly onTuple: CopyTupleHandler,
  ) {
    this.at = new Int32Array(fields);
    this.len = new Int32Array(fields);
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Runs it on `client` (inside whatever transaction is open there); resolves with the number of tuples. */
  static run(client: Pick<pg.ClientBase, 'query'>, text: string, fields: number, onTuple: CopyTupleHandler): Promise<number> {
    const copy = new BinaryCopyOut(text, fields, onTuple);
    (client.query as unknown as (q: BinaryCopyOut) => unknown)(copy);
    return copy.done;
  }

  /** pg Submittable: sends the statement as a simple query. */
  submit(connection: Connection): void {
    connection.query(this.text);
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failure !== null || this.ended) return;
    try {
      this.consume(this.carry ? Buffer.concat([this.carry, msg.chunk]) : msg.chunk);
    } catch (error) {
      this.failure = error; // the remaining messages are drained unread; done rejects at ReadyForQuery
    }
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  handleReadyForQuery(): void {
    if (this.failure === null && (!this.ended || this.carry !== null)) this.failure = new Error('binary COPY: the data ended inside a tuple or before the trailer');
    if (this.failure !== null) this.reject(this.failure);
    else this.resolve(this.tuples);
  }

  handleError(error: unknown): void {
    this.reject(error);
  }

  /** Decodes every complete tuple of `buf`; keeps an incomplete tail for the next message. */
  private consume(buf: Buffer): void {
    let o = 0;
    const end = buf.length;
    if (!this.header) {
      if (end < SIGNATURE.length + 8) {
        this.carry = Buffer.from(buf);
        return;
      }
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('binary COPY: no signature');
      const ext = buf.readInt32BE(SIGNATURE.length + 4);
      if (end < SIGNATURE.length + 8 + ext) {
        this.carry = Buffer.from(buf);
        return;
      }
      o = SIGNATURE.length + 8 + ext;
      this.header = true;
    }
    const { at, len, fields } = this;
    while (o + 2 <= end) {
      const count = buf.readInt16BE(o);
      if (count === -1) {
        this.ended = true;
        o += 2;
        break;
      }
      if (count !== fields) throw new Error(`binary COPY: a tuple of ${count} fields, expected ${fields}`);
      let p = o + 2;
      let complete = true;
      for (let i = 0; i < fields; i++) {
        if (p + 4 > end) {
          complete = false;
          break;
        }
        const n = buf.readInt32BE(p);
        p += 4;
        at[i] = p;
        len[i] = n;
        if (n > 0) p += n;
        if (p > end) {
          complete = false;
          break;
        }
      }
      if (!complete) break;
      this.onTuple(buf, at, len);
      this.tuples++;
      o = p;
    }
    // A tail (a tuple split across CopyData messages) is copied: the message's buffer is reused by the parser.
    this.carry = o < end ? Buffer.from(buf.subarray(o)) : null;
  }
}
