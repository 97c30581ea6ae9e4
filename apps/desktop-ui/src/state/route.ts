/**
 * The current hash route as React state, and navigation helpers. `navigate` pushes a history
 * entry; `replace` swaps the current one (used when a draft becomes a stored conversation).
 */
import { useCallback, useEffect, useState } from 'react';
import { formatHash, parseHash, type Route } from '../lib/links';

export function useHashRoute(): { route: Route; navigate: (r: Route | string) => void; replace: (r: Route) => void } {
  const [route, setRoute] = useState<Route>(() => parseHash(globalThis.location?.hash ?? ''));
  useEffect(() => {
    const onHash = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const navigate = useCallback((r: Route | string) => {
    const hash = typeof r === 'string' ? r : formatHash(r);
    if (location.hash === hash) setRoute(parseHash(hash));
    else location.hash = hash;
  }, []);
  const replace = useCallback((r: Route) => {
    history.replaceState(null, '', formatHash(r));
    setRoute(r);
  }, []);
  return { route, navigate, replace };
}
