/**
 * Index panel state: `index.status`, re-read on `index.changed` events, polled every 2 s while the
 * semantic index is filling (partial with work pending) and every 30 s otherwise.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { coverageProgress } from '../lib/coverage';
import type { IndexStatus } from '../types';
import { useGatewayEvent } from './events';
import { useRpc } from './rpcContext';

export interface IndexApi {
  status: IndexStatus | null;
  error: string | null;
  loading: boolean;
  /** True while the semantic index reports outstanding work. */
  indexing: boolean;
  checkedAt: number | null;
  refresh: () => Promise<void>;
}

export function isIndexing(s: IndexStatus | null): boolean {
  if (!s) return false;
  const p = coverageProgress(s.semantic.coverage);
  if (s.semantic.status === 'partial') return p === null || (p.pending ?? p.total - p.done) > 0;
  return p !== null && (p.pending ?? 0) > 0;
}

export function useIndexStatus(enabled: boolean): IndexApi {
  const { rpc } = useRpc();
  const [status, setStatus] = useState<IndexStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [checkedAt, setCheckedAt] = useState<number | null>(null);
  const inFlight = useRef(false);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      setStatus(await rpc.call('index.status', {}));
      setError(null);
      setCheckedAt(Date.now());
    } catch (err) {
      setError(errorText(err));
    } finally {
      inFlight.current = false;
      setLoading(false);
    }
  }, [rpc]);

  const indexing = isIndexing(status);

  useEffect(() => {
    if (!enabled) return;
    void refresh();
    const t = setInterval(() => void refresh(), indexing ? 2000 : 30_000);
    return () => clearInterval(t);
  }, [enabled, refresh, indexing]);

  useGatewayEvent(['index.changed'], () => void refresh(), 300);
  // Keyword counts follow message writes (imports, appends): re-read, but calmly.
  useGatewayEvent(['messages.changed', 'sessions.changed'], () => void refresh(), 1500);

  return { status, error, loading, indexing, checkedAt, refresh };
}
