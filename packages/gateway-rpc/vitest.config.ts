import { recallVitestConfig } from '@recall/config/vitest';
import { defineConfig } from 'vitest/config';

const base = recallVitestConfig();
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
