import { recallVitestConfig } from '@recall/config/vitest';
import { mergeConfig } from 'vitest/config';

// Each file starts its own `recall serve` and Chromium: run files one at a time so two browsers never
// compete for the CI's two cores (timing-sensitive UI waits stay far from their bounds) and the
// screenshots are written by one run at a time.
export default mergeConfig(recallVitestConfig({ testTimeout: 120_000 }), { test: { fileParallelism: false } });
