import { recallVitestConfig } from '@recall/config/vitest';

// As in packages/store-postgres: without the `import` condition in SSR resolution, `pg` (the
// PostgreSQL row of storage-source.test.ts) require()s pg-pool's CJS build, not its ESM one.
const config = recallVitestConfig();
const ssrResolve = config.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c: string) => c !== 'import');

export default config;
