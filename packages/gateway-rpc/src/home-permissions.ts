/**
 * Keeps the Recall home private: the home and its `profiles/` folder hold every recorded
 * conversation and the gateway token, so a home that other local users can read or enter (left by an
 * older version, a `mkdir` under a loose umask, or a copy) is reported and tightened to 0700 when a
 * command or the gateway starts. New folders and database files are created private by
 * `openDatabase()` in @recall/schema; this module only repairs what already exists.
 */
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE } from '@recall/schema';

/** A folder {@link tightenHome} changed to 0700. */
export interface TightenedPath {
  /** The folder. */
  path: string;
  /** The mode found (permission bits only), e.g. 0o755. */
  was: number;
}

/**
 * Tightens `<home>` and `<home>/profiles` to 0700 when group or others have any access, and
 * returns what was changed (empty when nothing was; also when the home does not exist yet). `warn`
 * is called once per tightened folder so the user learns that their history was exposed.
 */
export function tightenHome(home: string, warn: (message: string) => void = () => {}): TightenedPath[] {
  if (process.platform === 'win32') return [];
  const changed: TightenedPath[] = [];
  for (const path of [home, join(home, 'profiles')]) {
    let mode: number;
    try {
      const stat = statSync(path);
      if (!stat.isDirectory()) continue;
      mode = stat.mode & 0o777;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, PRIVATE_DIR_MODE);
      changed.push({ path, was: mode });
      warn(`${path} was readable by other users (mode ${mode.toString(8)}); changed it to 700 so only you can read your history.`);
    } catch (error) {
      warn(`${path} is readable by other users (mode ${mode.toString(8)}) and could not be changed: ${(error as Error).message}. Run: chmod 700 ${path}`);
    }
  }
  return changed;
}
