/**
 * Child process of `pnpm bench:index`: appends one message at a time to a session (each append is
 * one store transaction, like a chat turn) for `durationMs`, and prints the latency of every append
 * as a JSON array. Run against the database the bench's worker is backfilling, it measures the
 * lock wait that backfill imposes on concurrent writers.
 * argv: dbPath sessionId durationMs
 */
import { openDatabase } from '@recall/schema';
import { appendMessage } from '@recall/store';

const [dbPath, sessionId, duration] = process.argv.slice(2);
const db = openDatabase(dbPath!);
const latencies: number[] = [];
const end = Date.now() + Number(duration);
let i = 0;
while (Date.now() < end) {
  const t = performance.now();
  appendMessage(db, sessionId!, { role: 'user', content: `concurrent append ${i++} while the index works` });
  latencies.push(performance.now() - t);
  // ~200 appends/s: a busy chat, not a bulk import.
  await new Promise((r) => setTimeout(r, 5));
}
db.close();
process.stdout.write(JSON.stringify(latencies));
