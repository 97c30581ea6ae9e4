/**
 * Which profile a running `recall serve` (or `recall sync`) is using: a small file
 * `<home>/profiles/<profile>/serving.json` (`{ pid, command, url, startedAt }`, mode 0600) written
 * when the long-running command starts and removed when it stops. `recall restore` refuses while
 * it names a live process, because replacing the database file under a gateway would leave the
 * gateway writing to the replaced file. A file left by a crashed process (its pid is gone) is stale
 * and ignored.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_FILE_MODE, profileDatabasePath } from '@recall/schema';
import { GatewayError } from '@recall/gateway-rpc';

interface ServingInfo {
  pid: number;
  command: string;
  url: string | null;
  startedAt: string;
}

function lockPath(home: string, profile: string): string {
  return join(dirname(profileDatabasePath(home, profile)), 'serving.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Records that this process serves the profile; returns the function that removes the record. */
export function markServing(home: string, profile: string, command: string, url: string | null): () => void {
  const path = lockPath(home, profile);
  const info: ServingInfo = { pid: process.pid, command, url, startedAt: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(info)}\n`, { mode: PRIVATE_FILE_MODE });
  return () => {
    try {
      const current = JSON.parse(readFileSync(path, 'utf8')) as ServingInfo;
      if (current.pid === process.pid) rmSync(path, { force: true });
    } catch {
      // Already gone, or replaced by another process's record: leave it.
    }
  };
}

/** The live process serving the profile, or null (no record, or a stale one). */
export function servingProcess(home: string, profile: string): ServingInfo | null {
  try {
    const info = JSON.parse(readFileSync(lockPath(home, profile), 'utf8')) as ServingInfo;
    return typeof info.pid === 'number' && info.pid !== process.pid && alive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

/** Code `profile_in_use`: a `recall serve` / `recall sync` process has the profile open. */
export class ProfileInUseError extends GatewayError {
  constructor(profile: string, info: ServingInfo) {
    super(
      'profile_in_use',
      `Profile "${profile}" is in use by "recall ${info.command}" (process ${info.pid}${info.url ? `, ${info.url}` : ''}). Stop it (Ctrl-C in its terminal), then restore.`,
      { data: { profile, pid: info.pid } },
    );
    this.name = 'ProfileInUseError';
  }
}
