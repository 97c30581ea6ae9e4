import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, startGateway } from '@recall/gateway-rpc';

const home = mkdtempSync(join(tmpdir(), 'recall-gateway-example-'));
// Port 0 = any free port on 127.0.0.1; uiDir null = JSON-RPC only, no desktop UI.
const gateway = await startGateway({ home, port: 0, uiDir: null, logger: silentLogger });
try {
  const project = (await gateway.call('projects.create', { name: 'Lighthouse' })) as { id: string };
  // An earlier conversation of the project, with its messages…
  await gateway.call('session.create', {
    projectId: project.id,
    title: 'Ledger format',
    messages: [
      { role: 'user', content: 'Which format should the lighthouse ledger use?' },
      { role: 'assistant', content: 'Append-only CSV, one row per keeper shift.' },
    ],
  });
  // …and the current one, whose project decides what session_search may see.
  const current = (await gateway.call('session.create', { projectId: project.id, title: 'Today' })) as { id: string };

  const found = (await gateway.call('search.session_search', { sessionId: current.id, query: 'lighthouse ledger', search_mode: 'keyword' })) as {
    used_mode: string;
    results: { title: string | null; snippet: string }[];
  };
  console.log(`used_mode: ${found.used_mode}`);
  for (const hit of found.results) console.log(`${hit.title}: ${hit.snippet}`);
  console.log(`clients connect to ${gateway.rpcUrl.replace(/:\d+\//, ':PORT/')} with a Bearer token`);
} finally {
  await gateway.close();
  rmSync(home, { recursive: true, force: true });
}
