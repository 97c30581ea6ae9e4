/**
 * `@recall/storage-ports/testing`: the conformance suite every storage adapter runs (vitest +
 * fast-check; test-only, no compatibility promise). `describeStorageConformance(name, open)`
 * registers the same tests for any adapter; `open()` must return a fresh, empty storage.
 */
import { describe } from 'vitest';
import { describeBatchConformance } from './batches.js';
import { describeBatchReadConformance } from './batch-reads.js';
import { describeConsentConformance } from './consent.js';
import { describeCoreConformance } from './core.js';
import { describeFeedConformance, type ReopenStorage } from './feed.js';
import { describeIsolationConformance } from './isolation.js';
import { describeKeywordConformance } from './keyword.js';
import { describePurgeConformance } from './purges.js';
import { describeReadScopeConformance } from './read-scope.js';
import { describeSemanticConformance } from './semantic.js';
import { describeSemanticWorkConformance } from './semantic-work.js';
import type { OpenFreshStorage } from './harness.js';

/** Options of describeStorageConformance. */
export interface ConformanceOptions {
  /** Run the semantic rows' tests (the storage carries `semantic`). */
  semantic?: boolean;
  /** fast-check runs of the isolation property (default 25). */
  isolationRuns?: number;
  /** fast-check runs of the purge property (default 15). */
  purgeRuns?: number;
  /** fast-check runs of the allowed-set property (default 15). */
  allowedSetRuns?: number;
  /** A second handle on the same data as a storage `open()` returned: enables the change-feed tests. */
  reopen?: ReopenStorage;
  /** Run only these parts (default: all that apply); e.g. a package adding only the semantic rows runs `['semantic']`. */
  only?: ReadonlyArray<'core' | 'keyword' | 'isolation' | 'feed' | 'semantic' | 'read-scope' | 'batch-reads' | 'purges'>;
  /**
   * The backend itself limits a `withReadScope` read (PostgreSQL's row-level security): also check
   * that an unscoped read inside a scope returns nothing of another project and a write is refused.
   */
  enforcedReadScope?: boolean;
}

/** Registers the storage conformance suite under `name` for an adapter whose `open()` gives a fresh, empty storage. */
export function describeStorageConformance(name: string, open: OpenFreshStorage, options: ConformanceOptions = {}): void {
  describe(`storage conformance: ${name}`, () => {
    const runs = (part: NonNullable<ConformanceOptions['only']>[number]) => !options.only || options.only.includes(part);
    if (runs('core')) describeCoreConformance(open);
    if (runs('core')) describeBatchConformance(open);
    if (runs('keyword')) describeKeywordConformance(open);
    if (runs('isolation')) describeIsolationConformance(open, options.isolationRuns === undefined ? {} : { numRuns: options.isolationRuns });
    if (runs('read-scope')) describeReadScopeConformance(open, options.enforcedReadScope ? { enforced: true } : {});
    if (runs('batch-reads')) describeBatchReadConformance(open, options.enforcedReadScope ? { enforced: true } : {});
    if (runs('purges')) describePurgeConformance(open, options.purgeRuns === undefined ? {} : { numRuns: options.purgeRuns });
    if (options.reopen && runs('feed')) describeFeedConformance(open, options.reopen);
    if (options.semantic && runs('semantic')) describeSemanticConformance(open, options.allowedSetRuns === undefined ? {} : { numRuns: options.allowedSetRuns });
    if (options.semantic && runs('semantic')) describeSemanticWorkConformance(open);
    if (options.semantic && runs('semantic')) describeConsentConformance(open);
  });
}

/** Opens a fresh, empty storage for one test. */
export type { OpenFreshStorage } from './harness.js';
/** Opens a second handle on the same data (the change-feed tests). */
export type { ReopenStorage } from './feed.js';
