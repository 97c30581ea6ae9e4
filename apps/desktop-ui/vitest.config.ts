// Unit tests for the UI's pure logic (routes, grouping, snippet splitting) run in Node via the shared config.
import { recallVitestConfig } from '@recall/config/vitest';

export default recallVitestConfig({ include: ['test/**/*.test.ts'] });
