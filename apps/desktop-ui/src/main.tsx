/**
 * Entry point: creates the single RPC client (authenticated by the browser's session cookie; the
 * page holds no token) and event bus, and mounts <App/>.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { RpcClient } from './rpc';
import { EventBus } from './state/events';
import { RpcContext } from './state/rpcContext';
import './styles.css';

const value = { rpc: new RpcClient(), events: new EventBus() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RpcContext.Provider value={value}>
      <App />
    </RpcContext.Provider>
  </StrictMode>,
);
