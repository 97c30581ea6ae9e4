/**
 * What the conformance suite is given: `open()` returns a fresh, empty storage (a new SQLite file or
 * a new PostgreSQL database) that the suite closes after the test.
 */
import { afterEach } from 'vitest';
import type { Storage } from '../storage.js';

/** Opens a fresh, empty storage for one test. */
export type OpenFreshStorage = () => Promise<Storage>;

/** Tracks opened storages and closes them after each test. */
export function useStorages(open: OpenFreshStorage): () => Promise<Storage> {
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });
  return async () => {
    const s = await open();
    opened.push(s);
    return s;
  };
}

/** The stable code of a rejection (or 'resolved' when it did not reject). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (error) {
    return String((error as { code?: unknown }).code ?? (error as Error).message);
  }
}
