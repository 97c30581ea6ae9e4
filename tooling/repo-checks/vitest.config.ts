import { recallVitestConfig } from '@recall/config/vitest';

export default recallVitestConfig({ testTimeout: 300_000 });
