import { recallVitestConfig } from '@recall/config/vitest';

// pg is imported by the PostgreSQL cases (test/ports.test.ts). The shared config lists the `import` condition for SSR resolution, and vitest 4 applies it to
// Node's own require() of external CJS packages as well: `pg` then require()s pg-pool's ESM build
// and fails ("Class extends value [object Module]"). Vite adds import/require per importer anyway.
const config = recallVitestConfig();
const ssrResolve = config.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c: string) => c !== 'import');

export default config;
