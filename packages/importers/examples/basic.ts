import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { importJsonlText } from '@recall/importers';

const dir = mkdtempSync(join(tmpdir(), 'recall-importers-'));
const db = openDatabase(join(dir, 'profile.db'));
try {
  // Two recall-jsonl v1 lines: a session, then one of its messages.
  const jsonl = [
    '{"kind":"session","id":"s1","title":"Watering"}',
    '{"kind":"message","session_id":"s1","external_id":"m1","role":"user","content":"How often should the tomatoes be watered?"}',
  ].join('\n');

  const first = await importJsonlText(db, jsonl);
  console.log(first.lines, first.sessions, first.messages, first.errorCount);

  // Idempotent: importing the same text again writes nothing and skips both records.
  const again = await importJsonlText(db, jsonl);
  console.log(again.sessions, again.messages, again.skipped);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
