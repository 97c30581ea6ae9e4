/**
 * React context carrying the one RpcClient of the page (created in main.tsx; the browser's session
 * cookie authenticates it) and the event bus fed by the gateway's WebSocket, so hooks can call methods and subscribe
 * without prop drilling.
 */
import { createContext, useContext } from 'react';
import type { RpcClient } from '../rpc';
import type { EventBus } from './events';

export interface RpcContextValue {
  rpc: RpcClient;
  events: EventBus;
}

export const RpcContext = createContext<RpcContextValue | null>(null);

export function useRpc(): RpcContextValue {
  const v = useContext(RpcContext);
  if (!v) throw new Error('useRpc outside RpcContext');
  return v;
}
