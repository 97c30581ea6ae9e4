/**
 * Entry point: reads the gateway token from the page, creates the single RPC client and event bus,
 * and mounts <App/>.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { readToken, RpcClient } from './rpc';
import { EventBus } from './state/events';
import { RpcContext } from './state/rpcContext';
import './styles.css';

const token = readToken(document);
const value = { rpc: new RpcClient(token), events: new EventBus() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RpcContext.Provider value={value}>
      <App token={token} />
    </RpcContext.Provider>
  </StrictMode>,
);
