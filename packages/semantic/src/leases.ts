/**
 * The worker-side rules of leased embedding work, the same for every adapter: who a worker is
 * (`host:pid:random`), which lease owners of this host are dead (their leases are freed through
 * ClaimQueue.reclaim), and the built-in same-length mask a chunk's text is cut from.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createRedactor } from '@recall/redaction';

let builtinMask: ((content: string) => string) | null = null;

/** The built-in same-length mask (@recall/redaction's rules, `<private>` spans included), compiled once. */
export function defaultChunkMask(): (content: string) => string {
  if (builtinMask === null) {
    const redactor = createRedactor();
    builtinMask = (content) => redactor.mask(content).text;
  }
  return builtinMask;
}

/** `host:pid:random` — lets a restarted worker on the same host release a dead process's leases. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Of `owners` (lease owners `host:pid:random`), those that are workers of this host whose process is
 * gone (a crash, kill -9) — or this very process under another id (a restarted index) — never `selfOwner`.
 */
export function deadOwnersOfThisHost(owners: readonly string[], selfOwner: string): string[] {
  const host = hostname();
  return owners.filter((owner) => {
    if (owner === selfOwner) return false;
    const [h, pidText] = owner.split(':');
    const pid = Number(pidText);
    if (h !== host || !Number.isInteger(pid)) return false;
    return pid === process.pid || !pidAlive(pid);
  });
}
