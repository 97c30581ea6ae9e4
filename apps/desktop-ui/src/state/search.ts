/**
 * Search panel state. A search runs in a scope the UI holds as trusted context, never as a tool
 * argument: *as* the open conversation (`search.session_search` with `sessionId`: the gateway
 * resolves its stored project) or over a whole project (`projectId`, from the project's header:
 * no conversation needed). Results follow the scope: when the scope (conversation, its project, or
 * the searched project) or the mode changes, an answered search is run again for the new context
 * and its old results leave the screen at once; a cleared query (× or Escape) clears them; a new
 * search replaces the shown results with "Searching…". A result is only ever shown for the scope
 * it was computed in, so another project's text never stays on screen.
 */
import { useCallback, useEffect, useRef, useState, type MutableRefObject } from 'react';
import { errorText } from '../rpc';
import type { SearchMode, SearchResult } from '@recall/rpc-contract';
import { useRpc } from './rpcContext';

export type SearchStatus = 'idle' | 'searching' | 'done' | 'error';

/** Where a search runs: as a conversation (its stored project), or a whole project. */
export type SearchScope = { kind: 'session'; sessionId: string; projectId: string | null } | { kind: 'project'; projectId: string };

/** One string per distinct scope (a conversation moved to another project is another scope). */
export function scopeKey(scope: SearchScope | null): string {
  if (!scope) return '';
  return scope.kind === 'session' ? `s:${scope.sessionId}:${scope.projectId ?? ''}` : `p:${scope.projectId}`;
}

export interface SearchApi {
  query: string;
  setQuery: (q: string) => void;
  mode: SearchMode;
  setMode: (m: SearchMode) => void;
  status: SearchStatus;
  /** The result for the current scope (null while searching, after a scope change or a cleared query). */
  result: SearchResult | null;
  /** The query the shown result answers. */
  answeredQuery: string;
  scope: SearchScope | null;
  error: string | null;
  run: () => Promise<void>;
  /** Asks the answered search again (after a rename or a delete changed what it may show). */
  refresh: () => void;
  /** Empties the box and the results. */
  clear: () => void;
}

export const SEARCH_LIMIT = 20;

interface Shown {
  key: string;
  query: string;
  result: SearchResult;
}

export function useSearch(scope: SearchScope | null): SearchApi {
  const { rpc } = useRpc();
  const [query, setQueryState] = useState('');
  const [mode, setModeState] = useState<SearchMode>('hybrid');
  const [status, setStatus] = useState<SearchStatus>('idle');
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);
  const key = scopeKey(scope);
  /** The query the user last searched for (re-run when the context changes), '' when none. */
  const asked = useRef('');
  const scopeRef = useRef(scope);
  scopeRef.current = scope;

  const search = useCallback(
    async (q: string, m: SearchMode) => {
      const s = scopeRef.current;
      const mine = ++seq.current;
      if (!s || !q) {
        setShown(null);
        setStatus('idle');
        return;
      }
      const k = scopeKey(s);
      asked.current = q;
      setShown(null);
      setStatus('searching');
      setError(null);
      try {
        const where = s.kind === 'session' ? { sessionId: s.sessionId } : { projectId: s.projectId };
        const res = await rpc.call('search.session_search', { ...where, query: q, search_mode: m, limit: SEARCH_LIMIT });
        if (seq.current !== mine) return;
        setShown({ key: k, query: q, result: res });
        setStatus('done');
      } catch (err) {
        if (seq.current !== mine) return;
        setError(errorText(err));
        setStatus('error');
      }
    },
    [rpc],
  );

  // A new context: drop what is shown (and any search in flight) and ask again there.
  const modeRef = useRef(mode);
  modeRef.current = mode;
  useEffect(() => {
    seq.current++;
    setShown(null);
    setError(null);
    setStatus('idle');
    if (asked.current) void search(asked.current, modeRef.current);
  }, [key, search]);

  const setQuery = useCallback((q: string) => {
    setQueryState(q);
    if (q.trim() === '') {
      seq.current++;
      asked.current = '';
      setShown(null);
      setError(null);
      setStatus('idle');
    }
  }, []);

  // A mode change after a search asks again, for what the box holds now.
  const queryRef = useRef(query);
  queryRef.current = query;
  const setMode = useCallback(
    (m: SearchMode) => {
      setModeState(m);
      const q = queryRef.current.trim();
      if (asked.current && q) void search(q, m);
    },
    [search],
  );

  const run = useCallback(() => search(query.trim(), mode), [search, query, mode]);
  const refresh = useCallback(() => {
    if (asked.current) void search(asked.current, modeRef.current);
  }, [search]);
  const clear = useCallback(() => setQuery(''), [setQuery]);

  const current = shown && shown.key === key ? shown : null;
  return {
    query,
    setQuery,
    mode,
    setMode,
    status: status === 'done' && !current ? 'idle' : status,
    result: current?.result ?? null,
    answeredQuery: current?.query ?? '',
    scope,
    error,
    run,
    refresh,
    clear,
  };
}

export interface SearchScopeState {
  scope: SearchScope | null;
  /** The project searched as a whole (from its header), or null. */
  searchProject: string | null;
  setSearchProject: (projectId: string | null) => void;
  /** Set before opening a search result: the next conversation keeps this whole-project scope. */
  keepProjectScope: MutableRefObject<string | null>;
}

/**
 * Which scope the search panel searches: a whole project chosen from its header (held until
 * another conversation opens — except one opened from a result, which keeps the list walkable),
 * else the open conversation, else the project of an open draft, else none.
 */
export function useSearchScope(
  openSessionId: string | null,
  session: { id: string; projectId: string | null } | null,
  draftProjectId: string | null,
): SearchScopeState {
  const [searchProject, setSearchProject] = useState<string | null>(null);
  const keepProjectScope = useRef<string | null>(null);
  useEffect(() => {
    setSearchProject(keepProjectScope.current);
    keepProjectScope.current = null;
  }, [openSessionId]);
  const scope: SearchScope | null = searchProject
    ? { kind: 'project', projectId: searchProject }
    : session
      ? { kind: 'session', sessionId: session.id, projectId: session.projectId }
      : draftProjectId
        ? { kind: 'project', projectId: draftProjectId }
        : null;
  return { scope, searchProject, setSearchProject, keepProjectScope };
}
