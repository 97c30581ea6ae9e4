/**
 * Shared vitest configuration for every package. Packages resolve each other through the
 * `source` export condition so tests run against TypeScript sources without a prior build;
 * timeouts are generous because CI runs on two cores with real SQLite files and child processes.
 */
import { defineConfig } from 'vitest/config';

export function recallVitestConfig(overrides: { testTimeout?: number; include?: string[] } = {}) {
  return defineConfig({
    resolve: { conditions: ['source', 'module', 'node', 'import', 'default'] },
    ssr: { resolve: { conditions: ['source', 'module', 'node', 'import', 'default'], externalConditions: ['source'] } },
    test: {
      include: overrides.include ?? ['test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      reporters: ['default'],
    },
  });
}
