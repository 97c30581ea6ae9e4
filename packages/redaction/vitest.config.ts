import { recallVitestConfig } from '@recall/config/vitest';

export default recallVitestConfig();
