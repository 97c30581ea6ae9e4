/**
 * The SemanticSource that `session_search` uses (structurally the interface of
 * @recall/search-tool's semantic-source.ts; this package may not import search-tool, so the few
 * types are repeated here). `status(scope)` reports what the index can truthfully say for the
 * caller's scope; `search()` embeds the query with the active provider under the caller's
 * AbortSignal (the tool's one deadline), then scans the allowed set of the active fingerprint only
 * — vectors of another fingerprint are never compared — and returns the best chunk per message.
 * Browse/read/scroll never reach this module, so they never call the provider. This module is the
 * query path every source shares; the sources are the SQLite one (sqlite/source.ts, the certified
 * int8 scan over the profile file) and the ports' one (storage-source.ts).
 */
import type { WritingScript } from '@recall/rpc-contract';
import type { SemanticScope } from './allowed-set.js';
import type { SemanticStatusName } from './status.js';
import { SemanticSearchUnavailableError } from './errors.js';
import { normalizeL2 } from './vector-scan.js';


/**
 * What the source says about a scope: status, coverage (messages indexed of total, or `unknown`) and why.
 */
export interface SemanticStatusReport {
  status: SemanticStatusName;
  coverage: { indexed: number; total: number } | 'unknown';
  reason?: string;
}

/**
 * A semantic match: the best chunk of a message, with its cosine score (−1…1) and UTF-16 range in the text.
 */
export interface SourceHit {
  messageId: number;
  sessionId: string;
  score: number;
  start?: number;
  end?: number;
}

/** How fusion should weigh this source's list (per model, from config; see search-tool fusion.ts). */
export interface SourceFusionHints {
  semanticWeight?: number;
  similarityFloor?: number;
  keywordTopBonus?: number;
  keywordTopMinGap?: number;
  keywordTopRanks?: number;
}

/**
 * The semantic source `createSessionSearchTool({ semantic })` of @recall/search-tool takes (it fits
 * that package's `SemanticSource`). `search()` rejects with `SemanticSearchUnavailableError`
 * (`semantic_search_unavailable`) when the provider is down, the deadline passed or no vectors of the
 * configured model exist yet; the tool then falls back to keyword search.
 */
export interface ScopedSemanticSource {
  status(scope: SemanticScope): SemanticStatusReport;
  search(query: string, scope: SemanticScope, options: { limit: number; roles?: readonly string[]; signal: AbortSignal; since?: number; until?: number }): Promise<SourceHit[]>;
  readonly fusion?: SourceFusionHints;
  /**
   * The writing systems the model reads (its provider's `info.scripts`; absent = every script):
   * session_search keeps a semantic hit of a query written only in other scripts only when the
   * hit's chunk shares the query's script.
   */
  readonly scripts?: readonly WritingScript[];
  /** Query embeddings requested so far (tests count them; documents are embedded by the worker). */
  readonly embedCalls: number;
}

/** The part of an embedding provider a query needs. */
export interface QueryEmbedder {
  readonly info: { dims: number; scripts?: readonly WritingScript[] };
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** As `EmbeddingProvider.availability()`: `available: false` = status `unavailable`, search refused. */
  availability?(): { available: true } | { available: false; error: { message: string } };
}

/** The active fingerprint a query is compared on: its id and dimensions. */
export interface ActiveFingerprint {
  id: number;
  dims: number;
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new SemanticSearchUnavailableError('the deadline passed before the query was embedded'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SemanticSearchUnavailableError('the query embedding did not finish before the deadline'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** The provider's up-front "cannot work" message, or null (absent check = assumed available). */
function cannotWork(embedder: QueryEmbedder): string | null {
  const availability = embedder.availability?.();
  return availability && !availability.available ? availability.error.message : null;
}

/** The status a source reports for a scope, with the provider's own "cannot work" turning ready/partial into unavailable. */
export function statusWithProvider(embedder: QueryEmbedder | null, report: () => SemanticStatusReport): SemanticStatusReport {
  if (!embedder) return { status: 'unavailable', coverage: 'unknown', reason: 'no embedding provider is running' };
  const out = report();
  // A provider that cannot work at all never reports ready/partial (disabled stays disabled).
  if (cannotWork(embedder) && (out.status === 'ready' || out.status === 'partial')) return { ...out, status: 'unavailable', reason: 'provider_unavailable' };
  return out;
}

/**
 * The query's unit vector and the active fingerprint it is compared on, under the call's deadline:
 * the one query path of every source (SQLite file or storage ports). `onEmbed` is called right
 * before the provider is asked (the sources count query embeddings with it).
 */
export async function embedQuery(
  embedder: QueryEmbedder | null,
  activeFingerprint: () => ActiveFingerprint | null | Promise<ActiveFingerprint | null>,
  query: string,
  signal: AbortSignal,
  onEmbed: () => void = () => {},
): Promise<{ vector: Float32Array; fingerprint: ActiveFingerprint }> {
  if (!embedder) throw new SemanticSearchUnavailableError('no embedding provider is running');
  const down = cannotWork(embedder);
  if (down) throw new SemanticSearchUnavailableError(`the embedding provider cannot work: ${down}`);
  const fingerprint = await activeFingerprint();
  if (!fingerprint) throw new SemanticSearchUnavailableError('the semantic index has no vectors for the configured model yet');
  if (fingerprint.dims !== embedder.info.dims) throw new SemanticSearchUnavailableError(`the provider returns ${embedder.info.dims}-d vectors, the index holds ${fingerprint.dims}-d`);
  onEmbed();
  const [raw] = await abortable(embedder.embed([query], { signal }), signal);
  if (!raw || raw.length !== fingerprint.dims) throw new SemanticSearchUnavailableError('the provider returned no usable query vector');
  const vector = normalizeL2(Float32Array.from(raw));
  if (signal.aborted) throw new SemanticSearchUnavailableError('the deadline passed before the scan');
  return { vector, fingerprint };
}

/** Hits at or above the model's similarity floor (fusion hints), in the tool's hit shape. */
export function aboveFloor(hits: readonly SourceHit[], fusion: SourceFusionHints | undefined): SourceHit[] {
  const floor = fusion?.similarityFloor;
  return hits.filter((h) => floor === undefined || h.score >= floor).map((h) => ({ messageId: h.messageId, sessionId: h.sessionId, score: h.score, start: h.start, end: h.end }));
}
