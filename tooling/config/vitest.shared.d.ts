import type { UserConfig } from 'vitest/config';
export declare function recallVitestConfig(overrides?: { testTimeout?: number; include?: string[] }): UserConfig;
