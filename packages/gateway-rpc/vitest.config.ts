import { recallVitestConfig } from '@recall/config/vitest';
import { defineConfig } from 'vitest/config';

const base = recallVitestConfig();
// pg is imported by the PostgreSQL cases (test/team-writes.test.ts): without the `import` condition
// for SSR resolution, Node's require() of pg gets pg-pool's CJS build (as in packages/chat).
const ssrResolve = base.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c: string) => c !== 'import');
/** Measures latency under load (p95 < 50 ms): it runs after every other file, alone on the machine's cores. */
const LOAD_TESTS = ['test/connection-load.test.ts'];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: [
      { ...base, test: { ...base.test, name: 'gateway-rpc', exclude: LOAD_TESTS } },
      { ...base, test: { ...base.test, name: 'gateway-rpc-load', include: LOAD_TESTS, sequence: { groupOrder: 1 } } },
    ],
  },
});
