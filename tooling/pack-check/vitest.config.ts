import { recallVitestConfig } from '@recall/config/vitest';

// One scratch install takes minutes on two cores (better-sqlite3 compiles from source).
export default recallVitestConfig({ testTimeout: 600_000 });
