import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '@recall/cli';

const home = mkdtempSync(join(tmpdir(), 'recall-cli-example-'));
const history = join(home, 'history.jsonl');
const lines = [
  { kind: 'project', id: 'p_alpha', name: 'Alpha' },
  { kind: 'session', id: 's-alpha-1', project_id: 'p_alpha', title: 'Flaky linker' },
  { kind: 'message', session_id: 's-alpha-1', external_id: 'm1', role: 'user', content: 'The linker fails with LNK2019.' },
];
writeFileSync(history, lines.map((line) => JSON.stringify(line)).join('\n'));
try {
  // `recall import FILE --home DIR`, then `recall projects --home DIR`, in this process: they write
  // to this process's stdout/stderr and resolve with the exit code instead of exiting.
  const imported = await main(['import', history, '--home', home]);
  const listed = await main(['projects', '--home', home]);
  console.log(`exit codes: import ${imported}, projects ${listed}`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
