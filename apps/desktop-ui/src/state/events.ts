/**
 * Gateway events for the React tree: an EventBus (plain pub/sub) that the EventStream feeds, a hook
 * that starts the stream once the gateway has answered an HTTP call, and `useGatewayEvent` to run
 * a (debounced) refresh when an event of interest arrives. A reconnect emits every event type once
 * ("resync") because notifications may have been missed while the socket was down, then a
 * `resync` event for listeners that keep their own state (the chat runs). `chat.*` events travel
 * on the same bus; `useChatRuns` subscribes to them directly (undebounced: they carry the stream).
 */
import { useEffect, useRef, useState } from 'react';
import { EventStream, type ConnectionState } from '../rpc';
import { EVENT_TYPES, type GatewayEvent, type GatewayEventType } from '@recall/rpc-contract';
import type { AnyEvent } from '../types';
import { useRpc } from './rpcContext';

type Listener = (e: AnyEvent) => void;

export class EventBus {
  private listeners = new Set<Listener>();
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  emit(e: AnyEvent): void {
    for (const fn of [...this.listeners]) fn(e);
  }
}

// After a reconnect every change event is replayed once, without ids (= refresh everything of that kind).
const ALL_TYPES: readonly GatewayEventType[] = EVENT_TYPES;

export interface LiveState {
  state: ConnectionState | 'off';
  retryInMs?: number;
}

/** Runs the event WebSocket while `enabled` (after the first successful call). */
export function useEventStream(enabled: boolean): LiveState {
  const { events } = useRpc();
  const [live, setLive] = useState<LiveState>({ state: 'off' });
  useEffect(() => {
    if (!enabled) return;
    const stream = new EventStream({
      onEvent: (e) => events.emit(e),
      onState: (state, retryInMs) => setLive(retryInMs === undefined ? { state } : { state, retryInMs }),
      onResync: () => {
        for (const type of ALL_TYPES) events.emit({ type });
        events.emit({ type: 'resync' });
      },
    });
    stream.start();
    return () => stream.stop();
  }, [enabled, events]);
  return live;
}

/**
 * Calls `handler` (debounced by `delayMs`) when an event of one of `types` arrives. The handler
 * receives the events collected during the debounce window.
 */
export function useGatewayEvent(types: GatewayEventType[], handler: (batch: GatewayEvent[]) => void, delayMs = 120): void {
  const { events } = useRpc();
  const handlerRef = useRef(handler);
  handlerRef.current = handler;
  const key = types.join(',');
  useEffect(() => {
    const wanted = new Set(key.split(','));
    let batch: GatewayEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsub = events.subscribe((e) => {
      if (!wanted.has(e.type)) return;
      batch.push(e as GatewayEvent);
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        const b = batch;
        batch = [];
        handlerRef.current(b);
      }, delayMs);
    });
    return () => {
      unsub();
      if (timer) clearTimeout(timer);
    };
  }, [events, key, delayMs]);
}
