/**
 * What stands in for stage B when config.json asks for semantic recall but `@recall/semantic` is
 * not installed: an index service whose worker reports the provider unavailable (never
 * `providerAvailable: true`), whose controls refuse with `semantic_not_installed`, and a semantic
 * source for `session_search` that reports itself unavailable, so hybrid search degrades to keyword
 * results with that reason.
 */
import { GatewayError, idleProjectStatus, type IndexService, type IndexServiceProjectStatus } from '@recall/gateway-rpc';
import type { SemanticSource } from '@recall/search-tool';

/** The sentence people see (status, errors, the note of a hybrid search). */
export const SEMANTIC_NOT_INSTALLED =
  'Semantic recall is configured in config.json, but the @recall/semantic package is not installed. Install it next to @recall/cli (npm install @recall/semantic) and restart; keyword recall works meanwhile.';

function refuse(): never {
  throw new GatewayError('semantic_not_installed', SEMANTIC_NOT_INSTALLED);
}

/** An index service for a profile whose `semantic` section cannot be served (`enabled` as configured). */
export function notInstalledIndex(enabled: boolean): IndexService {
  const since = Date.now();
  const health = { state: 'stopped' as const, providerAvailable: false, lastError: { code: 'semantic_not_installed', message: SEMANTIC_NOT_INSTALLED, at: since }, lastSuccessAt: null, embedded: 0 };
  return {
    active: false,
    config: { enabled },
    provider: null,
    fingerprint: null,
    worker: enabled ? { health } : null,
    status: (projectId: string): IndexServiceProjectStatus =>
      enabled
        ? idleProjectStatus(projectId, { status: 'unavailable', reason: 'provider_unavailable', lastError: SEMANTIC_NOT_INSTALLED })
        : idleProjectStatus(projectId, { status: 'disabled', reason: 'turned_off' }),
    enable: refuse,
    disable: refuse,
    run: async () => refuse(),
    rebuild: refuse,
    pause() {},
    wake() {},
    start() {},
    close: async () => {},
  };
}

/** A semantic source that is never available (hybrid search answers with keyword results and this reason). */
export function notInstalledSource(): SemanticSource {
  return {
    status: () => ({ status: 'unavailable', coverage: 'unknown', reason: SEMANTIC_NOT_INSTALLED }),
    search: async () => refuse(),
  };
}
