/**
 * The git repository root of a working directory on this machine (the nearest ancestor holding a
 * `.git` entry), cached per directory. Importers use it only as session metadata and for
 * `--project-per-folder`'s folder choice; a folder that no longer exists simply has none.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

const cache = new Map<string, string | null>();
const MAX_CACHED = 10_000;

export function gitRootOf(cwd: string): string | null {
  if (!isAbsolute(cwd)) return null;
  const hit = cache.get(cwd);
  if (hit !== undefined) return hit;
  let root: string | null = null;
  let dir = cwd;
  for (let depth = 0; depth < 64; depth++) {
    if (existsSync(join(dir, '.git'))) {
      root = dir;
      break;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(cwd, root);
  return root;
}
