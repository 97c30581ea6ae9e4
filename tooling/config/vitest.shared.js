/**
 * Shared vitest configuration for every package. Packages resolve each other through the
 * `source` export condition so tests run against TypeScript sources without a prior build;
 * timeouts are generous because CI runs on two cores with real SQLite files and child processes.
 * Plain JS so that Node can load it from node_modules without a TypeScript loader.
 */
import { defineConfig } from 'vitest/config';

const conditions = ['source', 'module', 'node', 'import', 'default'];

/** @param {{ testTimeout?: number, include?: string[] }} [overrides] */
export function recallVitestConfig(overrides = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['source'] } },
    test: {
      include: overrides.include ?? ['test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
    },
  });
}
