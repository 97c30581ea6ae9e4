/**
 * The UI's own types around the wire contract. Every wire type — objects, params, results, events,
 * error codes — comes from @recall/rpc-contract, the one module the gateway validates and answers
 * with; only what the gateway never sends lives here: the typed method map the RPC client is
 * driven by (derived from the contract, so a method, param or result cannot drift) and the
 * synthetic `resync` event of the UI's own event bus.
 */
import type { RpcMethodName, RpcParamsInput, RpcResult, WireEvent } from '@recall/rpc-contract';

/** Method map: name → what the UI may send and what it gets back. Drives the typed `rpc.call`. */
export type RpcMethods = { [M in RpcMethodName]: { params: RpcParamsInput<M>; result: RpcResult<M> } };

export type RpcMethod = RpcMethodName;

/** Not from the gateway: the event socket reconnected, so anything may have been missed. */
export interface ResyncEvent {
  type: 'resync';
}

/** Everything the event bus carries: the gateway's change and chat events, plus `resync`. */
export type AnyEvent = WireEvent | ResyncEvent;
