/**
 * Semantic retrieval inside the caller's scope: the allowed set (allowed-set.ts, cached per project
 * by matrix-cache.ts) is scanned whole with the exact top-k kernel (vector-scan.ts); the role filter
 * picks whole role segments and the caller's own live messages are excluded row by row, so both
 * are applied before ranking, never after a global top-k. Several chunks of one message collapse to
 * the best one, which anchors the hit with its [start, end) range.
 */
import type { RecallDatabase } from '@recall/schema';
import type { MessageRole } from '@recall/rpc-contract';
import { loadAllowedSet, type AllowedDates, type AllowedSet, type SemanticScope } from './allowed-set.js';
import type { MatrixCache } from './matrix-cache.js';
import { TopK } from './topk.js';
import { scanTopK, type ScanBackend } from './vector-scan.js';

export interface ScopedHit {
  messageId: number;
  sessionId: string;
  /** Cosine similarity of the message's best chunk (vectors are unit length). */
  score: number;
  start: number;
  end: number;
}

export interface ExactSearchOptions {
  limit: number;
  roles?: readonly MessageRole[] | undefined;
  backend?: ScanBackend;
}

/**
 * The allowed set for a scope: cached for a project, read directly for own history and for a dated
 * query (the date range is part of its SQL, so a dated set is never the project's cached one).
 */
export function allowedSetFor(db: RecallDatabase, cache: MatrixCache | null, scope: SemanticScope, fingerprintId: number, dims: number, dates?: AllowedDates): AllowedSet {
  const dated = dates !== undefined && (dates.since !== undefined || dates.until !== undefined);
  if (dated) return loadAllowedSet(db, scope.kind === 'project' ? { projectId: scope.projectId } : { sessionIds: scope.sessionIds }, fingerprintId, dims, dates);
  if (scope.kind === 'project') return cache ? cache.get(db, scope.projectId, fingerprintId, dims) : loadAllowedSet(db, { projectId: scope.projectId }, fingerprintId, dims);
  return loadAllowedSet(db, { sessionIds: scope.sessionIds }, fingerprintId, dims);
}

/** Best `limit` messages of the allowed set for a unit query vector, best first. */
export function searchAllowedSet(set: AllowedSet, scope: SemanticScope, query: Float32Array, options: ExactSearchOptions): ScopedHit[] {
  if (options.limit <= 0 || set.rows === 0) return [];
  const roles = options.roles ? new Set(options.roles) : null;
  const segments = set.segments.filter((s) => !roles || roles.has(s.role));
  const callerIdx = scope.currentSessionId === null ? -1 : set.sessions.indexOf(scope.currentSessionId);
  const total = segments.reduce((n, s) => n + s.matrix.rows, 0);
  // Chunks, not messages, are ranked: ask for more rows until `limit` distinct messages are
  // certain (the limit-th distinct message precedes every row of an unseen message).
  let k = Math.min(total, options.limit * 2);
  for (;;) {
    const merged = new TopK(k);
    const owner: Array<{ seg: number; row: number }> = [];
    segments.forEach((seg, si) => {
      const exclude = new Set<number>();
      if (callerIdx >= 0) for (let row = 0; row < seg.matrix.rows; row++) if (seg.sessionIdx[row] === callerIdx && seg.live[row] === 1) exclude.add(row);
      for (const hit of scanTopK(seg.matrix, query, { k, exclude, ...(options.backend ? { backend: options.backend } : {}) })) {
        // One rank space across segments; ties keep segment order then row order.
        merged.push(owner.length, hit.score);
        owner.push({ seg: si, row: hit.row });
      }
    });
    const hits: ScopedHit[] = [];
    const seen = new Set<number>();
    const ranked = merged.sorted();
    for (const r of ranked) {
      const { seg: si, row } = owner[r.row]!;
      const seg = segments[si]!;
      const messageId = seg.messageIds[row]!;
      if (seen.has(messageId)) continue;
      seen.add(messageId);
      hits.push({ messageId, sessionId: set.sessions[seg.sessionIdx[row]!]!, score: r.score, start: seg.start[row]!, end: seg.end[row]! });
      if (hits.length === options.limit) break;
    }
    if (hits.length >= options.limit || k >= total || ranked.length < k) return hits;
    k = Math.min(total, k * 2);
  }
}
