/**
 * Search panel state. A search always runs *as* the open conversation: `search.session_search`
 * with `sessionId` = that conversation, so the gateway resolves the project from the DB. Changing
 * the open conversation clears the results, since they belonged to another scope.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../rpc';
import type { SearchMode, SearchResult } from '../types';
import { useRpc } from './rpcContext';

export type SearchStatus = 'idle' | 'searching' | 'done' | 'error';

export interface SearchApi {
  query: string;
  setQuery: (q: string) => void;
  mode: SearchMode;
  setMode: (m: SearchMode) => void;
  status: SearchStatus;
  result: SearchResult | null;
  /** The query the shown result answers. */
  answeredQuery: string;
  error: string | null;
  run: () => Promise<void>;
}

export const SEARCH_LIMIT = 20;

export function useSearch(sessionId: string | null): SearchApi {
  const { rpc } = useRpc();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<SearchMode>('hybrid');
  const [status, setStatus] = useState<SearchStatus>('idle');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [answeredQuery, setAnsweredQuery] = useState('');
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);

  useEffect(() => {
    seq.current++;
    setResult(null);
    setError(null);
    setStatus('idle');
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
      setAnsweredQuery(q);
      setStatus('done');
    } catch (err) {
      if (seq.current !== mine) return;
      setError(errorText(err));
      setStatus('error');
    }
  }, [rpc, sessionId, query, mode]);

  return { query, setQuery, mode, setMode, status, result, answeredQuery, error, run };
}
