/**
 * Connection slots of the gateway, in two budgets, so that connections without a token can never
 * take the slots an authenticated client needs. Every local account can reach 127.0.0.1 and every
 * peer address is 127.0.0.1, so limits per peer address mean nothing here; what separates a
 * client from an attacker is the credential, and that is only known once a request's headers have
 * arrived. Hence:
 *
 * - A new connection is **unauthenticated** until one of its requests carries the token or a live
 *   session cookie (or its WebSocket upgrade did). At most `maxUnauthenticated` such connections
 *   are open: one more closes the **oldest** unauthenticated one instead of refusing the newcomer,
 *   so idle sockets, slowloris header dribblers and unauthenticated keep-alive clients are pushed
 *   out by whoever connects next — and a real client, which sends its request at once, is through
 *   authentication long before `maxUnauthenticated` newer connections have arrived. An
 *   unauthenticated connection also has a short life: it is closed `unauthenticatedTimeoutMs` after
 *   it opened, whatever it sent (the gateway's first-request timeout).
 * - **Authenticated** connections (HTTP keep-alive, WebSockets) share the rest of `maxTotal`. Over
 *   it, the authenticated connection that has been **idle** longest (no request running) is closed
 *   — a WebSocket with close code 1013 "try again later" — so idle sockets of one client cannot
 *   lock out another. Only when every connection is busy with a request is a newcomer refused.
 */
import type { Socket } from 'node:net';

/** The budgets of {@link ConnectionSlots}. */
export interface ConnectionSlotLimits {
  /** Open connections at most (both kinds). */
  maxTotal: number;
  /** Unauthenticated connections at most; one more closes the oldest of them. */
  maxUnauthenticated: number;
  /** An unauthenticated connection is closed this long after it opened. */
  unauthenticatedTimeoutMs: number;
}

interface Slot {
  readonly socket: Socket;
  authenticated: boolean;
  /** Requests (HTTP) or frames (WebSocket) being handled now; a slot with 0 is idle. */
  active: number;
  /** When it last started or finished a request (ms), for "idle longest". */
  lastActive: number;
  timer: NodeJS.Timeout | null;
  /** How to close it when evicted (default: destroy the socket). */
  evict: (() => void) | null;
}

/** Counters for tests and logs. */
export interface ConnectionSlotStats {
  unauthenticated: number;
  authenticated: number;
  /** Connections closed to make room, since start. */
  evicted: number;
  /** New connections refused because every slot was busy, since start. */
  refused: number;
}

/** The slot accounting of one gateway (see the module comment). */
export class ConnectionSlots {
  // Maps keep insertion order: the first unauthenticated entry is the oldest.
  private readonly unauthenticated = new Map<Socket, Slot>();
  private readonly authenticated = new Map<Socket, Slot>();
  private evicted = 0;
  private refused = 0;

  constructor(
    private readonly limits: ConnectionSlotLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** A connection was accepted: admits it (closing others to make room) or destroys it. */
  accept(socket: Socket): void {
    if (this.unauthenticated.size >= this.limits.maxUnauthenticated) this.evictOldestUnauthenticated();
    if (this.size() >= this.limits.maxTotal && !this.evictIdlestAuthenticated(null)) {
      this.refused++;
      socket.destroy();
      return;
    }
    const slot: Slot = { socket, authenticated: false, active: 0, lastActive: this.now(), timer: null, evict: null };
    slot.timer = setTimeout(() => socket.destroy(), this.limits.unauthenticatedTimeoutMs);
    slot.timer.unref();
    this.unauthenticated.set(socket, slot);
    socket.once('close', () => this.release(socket));
  }

  /** A request (or upgrade) on `socket` authenticated: it moves to the authenticated budget for good. */
  authenticate(socket: Socket): void {
    const slot = this.unauthenticated.get(socket);
    if (slot === undefined) return;
    this.unauthenticated.delete(socket);
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    slot.authenticated = true;
    this.authenticated.set(socket, slot);
    const authenticatedBudget = Math.max(1, this.limits.maxTotal - this.limits.maxUnauthenticated);
    if (this.authenticated.size > authenticatedBudget) this.evictIdlestAuthenticated(socket);
  }

  /** Whether `socket` is in the authenticated budget. */
  isAuthenticated(socket: Socket): boolean {
    return this.authenticated.has(socket);
  }

  /** How to close `socket` politely when it is evicted (a WebSocket: close frame 1013). */
  onEvict(socket: Socket, evict: () => void): void {
    const slot = this.slotOf(socket);
    if (slot !== undefined) slot.evict = evict;
  }

  /** A request (HTTP) or frame (WebSocket) started on `socket`: it is not idle until {@link end}. */
  begin(socket: Socket): void {
    const slot = this.slotOf(socket);
    if (slot === undefined) return;
    slot.active++;
    slot.lastActive = this.now();
  }

  /** The request or frame started by {@link begin} finished. */
  end(socket: Socket): void {
    const slot = this.slotOf(socket);
    if (slot === undefined) return;
    slot.active = Math.max(0, slot.active - 1);
    slot.lastActive = this.now();
  }

  /** Current counts. */
  stats(): ConnectionSlotStats {
    return { unauthenticated: this.unauthenticated.size, authenticated: this.authenticated.size, evicted: this.evicted, refused: this.refused };
  }

  private size(): number {
    return this.unauthenticated.size + this.authenticated.size;
  }

  private slotOf(socket: Socket): Slot | undefined {
    return this.authenticated.get(socket) ?? this.unauthenticated.get(socket);
  }

  private release(socket: Socket): void {
    const slot = this.slotOf(socket);
    if (slot?.timer) clearTimeout(slot.timer);
    this.unauthenticated.delete(socket);
    this.authenticated.delete(socket);
  }

  private close(slot: Slot): void {
    // Out of the books at once: the slot is free even while a WebSocket closing handshake runs.
    this.release(slot.socket);
    this.evicted++;
    if (slot.evict !== null) slot.evict();
    else slot.socket.destroy();
  }

  private evictOldestUnauthenticated(): void {
    const oldest = this.unauthenticated.values().next();
    if (!oldest.done) this.close(oldest.value);
  }

  /** Closes the authenticated connection idle longest (never `keep`); false when none is idle. */
  private evictIdlestAuthenticated(keep: Socket | null): boolean {
    let idlest: Slot | null = null;
    for (const slot of this.authenticated.values()) {
      if (slot.active > 0 || slot.socket === keep) continue;
      if (idlest === null || slot.lastActive < idlest.lastActive) idlest = slot;
    }
    if (idlest === null) return false;
    this.close(idlest);
    return true;
  }
}
