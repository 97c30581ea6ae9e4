/**
 * Conformance of the change feed: a write made through ANOTHER handle on the same data (another
 * gateway process, in production) reaches a subscriber within a second, naming what changed; a
 * closed subscription hears nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { StorageChange } from '../feed.js';
import type { Storage } from '../storage.js';
import { type OpenFreshStorage, useStorages } from './harness.js';

/** Opens a second handle on the same data as `storage` (same file, same database). */
export type ReopenStorage = (storage: Storage) => Promise<Storage>;

async function until(changes: StorageChange[], test: (c: StorageChange) => boolean, ms: number): Promise<StorageChange | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = changes.find(test);
    if (hit || Date.now() > deadline) return hit;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Registers the change-feed conformance tests. */
export function describeFeedConformance(open: OpenFreshStorage, reopen: ReopenStorage): void {
  const fresh = useStorages(open);
  describe('change feed', () => {
    it('a move and an append made through another handle reach a subscriber within a second', async () => {
      const a = await fresh();
      await a.projects.create({ id: 'p_a', name: 'A' });
      await a.projects.create({ id: 'p_b', name: 'B' });
      await a.sessions.create({ id: 's1', projectId: 'p_a' });
      const b = await reopen(a);
      try {
        const seen: StorageChange[] = [];
        const sub = await a.changes.subscribe((c) => seen.push(c));
        await b.sessions.move('s1', 'p_b');
        const moved = await until(seen, (c) => c.kinds.includes('sessions'), 1000);
        expect(moved, 'no sessions change within 1 s').toBeDefined();
        if (moved!.sessionIds) expect(moved!.sessionIds).toContain('s1');
        if (moved!.projectIds) expect([...moved!.projectIds].sort()).toEqual(['p_a', 'p_b']);
        await b.messages.append('s1', [{ role: 'user', content: 'hello from the other gateway' }]);
        expect(await until(seen, (c) => c.kinds.includes('messages'), 1000), 'no messages change within 1 s').toBeDefined();
        await b.projects.update('p_a', { name: 'A renamed' });
        expect(await until(seen, (c) => c.kinds.includes('projects'), 1000), 'no projects change within 1 s').toBeDefined();
        await sub.close();
        const count = seen.length;
        await b.sessions.move('s1', 'p_a');
        await new Promise((r) => setTimeout(r, 400));
        expect(seen.length).toBe(count);
      } finally {
        await b.close();
      }
    });
  });
}
