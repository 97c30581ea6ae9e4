import { recallVitestConfig } from '@recall/config/vitest';

// As in packages/store-postgres and packages/semantic: without the `import` condition in SSR
// resolution, `pg` (hybrid-postgres.test.ts opens a team database in-process) require()s
// pg-pool's CJS build, not its ESM one.
const config = recallVitestConfig();
const ssrResolve = config.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c: string) => c !== 'import');

export default config;
