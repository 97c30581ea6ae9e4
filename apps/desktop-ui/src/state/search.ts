/**
 * Search panel state. A search always runs *as* the open conversation: `search.session_search`
 * with `sessionId` = that conversation, so the gateway resolves the project from the DB. The last
 * result stays visible after opening a hit (so the list can be walked), and remembers which
 * conversation and project it ran as; the panel says so when that is no longer the open one.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import type { SearchMode, SearchResult } from '@recall/rpc-contract';
import { useRpc } from './rpcContext';

export type SearchStatus = 'idle' | 'searching' | 'done' | 'error';

/** Which conversation (and its project at the time) a result was computed as. */
export interface RanAs {
  sessionId: string;
  projectId: string | null;
}

export interface SearchApi {
  query: string;
  setQuery: (q: string) => void;
  mode: SearchMode;
  setMode: (m: SearchMode) => void;
  status: SearchStatus;
  result: SearchResult | null;
  /** The query the shown result answers. */
  answeredQuery: string;
  ranAs: RanAs | null;
  error: string | null;
  run: () => Promise<void>;
}

export const SEARCH_LIMIT = 20;

export function useSearch(sessionId: string | null, projectId: string | null): SearchApi {
  const { rpc } = useRpc();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<SearchMode>('hybrid');
  const [status, setStatus] = useState<SearchStatus>('idle');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [answeredQuery, setAnsweredQuery] = useState('');
  const [ranAs, setRanAs] = useState<RanAs | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);

  // A search still in flight for another conversation is dropped when the open one changes.
  useEffect(() => {
    seq.current++;
    setStatus((s) => (s === 'searching' ? 'idle' : s));
    setError(null);
  }, [sessionId]);

  const run = useCallback(async () => {
    const q = query.trim();
    if (!sessionId || !q) return;
    const mine = ++seq.current;
    setStatus('searching');
    setError(null);
    try {
      const res = await rpc.call('search.session_search', { sessionId, query: q, search_mode: mode, limit: SEARCH_LIMIT });
      if (seq.current !== mine) return;
      setResult(res);
      setRanAs({ sessionId, projectId });
      setAnsweredQuery(q);
      setStatus('done');
    } catch (err) {
      if (seq.current !== mine) return;
      setError(errorText(err));
      setStatus('error');
    }
  }, [rpc, sessionId, projectId, query, mode]);

  return { query, setQuery, mode, setMode, status, result, answeredQuery, ranAs, error, run };
}
