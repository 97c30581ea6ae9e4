/**
 * The SQLite serving path of a semantic query: the allowed set of a scope read from the profile
 * database (cached per project by the matrix cache; own history and dated queries read directly)
 * and scanned by ../exact-search.ts `searchAllowedSet` inside one read transaction, so the
 * generation the cache checks and the vector rows the rescore reads come from one snapshot.
 */
import type { RecallDatabase } from '@recall/schema';
import type { AllowedDates, AllowedSet, SemanticScope } from '../allowed-set.js';
import { searchAllowedSet, StaleVectorError, type ExactSearchOptions, type ScopedHit } from '../exact-search.js';
import type { MatrixCache } from '../matrix-cache.js';
import { loadAllowedSet, sqliteAllowedSets } from './allowed-set.js';

/**
 * The allowed set for a scope: cached for a project, read directly for own history and for a dated
 * query (the date range is part of its SQL, so a dated set is never the project's cached one).
 */
export function allowedSetFor(db: RecallDatabase, cache: MatrixCache | null, scope: SemanticScope, fingerprintId: number, dims: number, dates?: AllowedDates): AllowedSet {
  const dated = dates !== undefined && (dates.since !== undefined || dates.until !== undefined);
  if (dated) return loadAllowedSet(db, scope.kind === 'project' ? { projectId: scope.projectId } : { sessionIds: scope.sessionIds }, fingerprintId, dims, dates);
  if (scope.kind === 'project') return cache ? cache.get(sqliteAllowedSets(db), scope.projectId, fingerprintId, dims) : loadAllowedSet(db, { projectId: scope.projectId }, fingerprintId, dims);
  return loadAllowedSet(db, { sessionIds: scope.sessionIds }, fingerprintId, dims);
}

/**
 * Allowed set + search in one read transaction, so the generation the cache checks and the vector
 * rows the rescore reads come from one snapshot; a stale entry (StaleVectorError) is dropped and
 * rebuilt once.
 */
export function searchScope(
  db: RecallDatabase,
  cache: MatrixCache | null,
  scope: SemanticScope,
  fingerprintId: number,
  dims: number,
  query: Float32Array,
  options: ExactSearchOptions,
  dates?: AllowedDates,
): ScopedHit[] {
  const run = () => db.raw.transaction(() => searchAllowedSet(allowedSetFor(db, cache, scope, fingerprintId, dims, dates), scope, query, options)).deferred();
  try {
    return run();
  } catch (error) {
    if (!(error instanceof StaleVectorError) || !cache || scope.kind !== 'project') throw error;
    cache.discard(sqliteAllowedSets(db), scope.projectId, fingerprintId, dims);
    return run();
  }
}
