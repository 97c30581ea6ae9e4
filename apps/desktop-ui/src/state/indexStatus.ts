/**
 * Index panel state: `index.status`, re-read on `index.changed` events (the worker's progress is
 * throttled there), polled every 2 s while the semantic index is filling (a project partial with
 * work pending or still being planned, or the worker running) and every 30 s otherwise; and the
 * controls — per-project consent (`index.project.enable|disable`), `index.run`, `index.pause`,
 * `index.rebuild` — each followed by a fresh status.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import { coverageProgress } from '../lib/coverage';
import type { IndexConsent, IndexStatus } from '@recall/rpc-contract';
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
  /** `shown`: the endpoints the consent dialog named; the gateway refuses (consent_endpoint_changed) when they are no longer the ones in use. */
  enable: (projectId: string, shown?: { endpoint: string; rerankEndpoint: string | null }) => Promise<IndexConsent>;
  disable: (projectId: string) => Promise<void>;
  run: (projectId?: string) => Promise<void>;
  pause: () => Promise<void>;
  rebuild: (projectId?: string) => Promise<number>;
}

export function isIndexing(s: IndexStatus | null): boolean {
  if (!s) return false;
  const w = s.semantic.worker?.state;
  if (w === 'running') return true;
  if (s.semantic.projects?.some((p) => p.consent.enabled && p.status === 'partial' && (p.pending > 0 || p.eligible === 'unknown'))) return true;
  const p = coverageProgress(s.semantic.coverage);
  if (s.semantic.status === 'partial') return p === null || p.pending > 0;
  return p !== null && p.pending > 0;
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

  const after = useCallback(
    async <T,>(p: Promise<T>): Promise<T> => {
      try {
        return await p;
      } finally {
        void refresh();
      }
    },
    [refresh],
  );
  const enable = useCallback(
    (projectId: string, shown?: { endpoint: string; rerankEndpoint: string | null }) => after(rpc.call('index.project.enable', { projectId, ...(shown ?? {}) })),
    [rpc, after],
  );
  const disable = useCallback(async (projectId: string) => void (await after(rpc.call('index.project.disable', { projectId }))), [rpc, after]);
  const run = useCallback(async (projectId?: string) => void (await after(rpc.call('index.run', projectId ? { projectId } : {}))), [rpc, after]);
  const pause = useCallback(async () => void (await after(rpc.call('index.pause', {}))), [rpc, after]);
  const rebuild = useCallback(
    async (projectId?: string) => (await after(rpc.call('index.rebuild', projectId ? { projectId } : {}))).chunksDeleted,
    [rpc, after],
  );

  return { status, error, loading, indexing, checkedAt, refresh, enable, disable, run, pause, rebuild };
}
