/**
 * Folder paths as project metadata: normalisation (so `/repo/`, `/repo/.` and `/repo` are one
 * folder), "is this path covered by that folder", and the discovered-folder suggestions (cwds and git
 * roots of conversations that no project folder covers). Folders never decide membership; they only
 * help the user find or create the explicit project a conversation should belong to.
 */
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';
import type { DiscoveredFolder } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { FolderPathError } from './errors.js';
import { folderPathSchema, parseInput } from './validation.js';

/**
 * A folder path in its one stored form (`/repo/`, `/repo/.` and `/repo` are one folder; Windows paths
 * keep their separators). Throws ValidationError for an empty, over-long (4096) or control-character path.
 */
export function normalizeFolderPath(input: string): string {
  const raw = parseInput(folderPathSchema, input, 'folder path');
  const isWindows = /^[A-Za-z]:[\\/]/.test(raw) || raw.startsWith('\\\\');
  const normalized = isWindows ? win32.normalize(raw) : posix.normalize(raw);
  const trimmed = normalized.length > 1 ? normalized.replace(/[\\/]+$/, '') : normalized;
  return trimmed === '' ? (isWindows ? '\\' : '/') : trimmed;
}

/** True when a normalised path is a filesystem root: `/`, `\\`, a drive root (`C:\\`, stored as `C:`) or a UNC share root. */
export function isFilesystemRoot(normalized: string): boolean {
  if (normalized === '/' || normalized === '\\' || /^[A-Za-z]:$/.test(normalized)) return true;
  if (!/^[A-Za-z]:[\\/]|^\\\\/.test(normalized)) return false;
  const root = win32.parse(normalized).root;
  return normalized === root || `${normalized}\\` === root;
}

/** Options of {@link projectFolderPath}: `confirmHome` accepts the user's home folder. */
export interface ProjectFolderOptions {
  confirmHome?: boolean;
}

/**
 * A path that may become a project folder, normalised: absolute, not a filesystem root, and not the
 * user's home folder unless `confirmHome` is true. Throws ValidationError for a malformed path and
 * FolderPathError (`invalid_folder`, `details.reason` `relative` / `root` / `home`) otherwise.
 */
export function projectFolderPath(input: string, options: ProjectFolderOptions = {}): string {
  const path = normalizeFolderPath(input);
  const absolute = posix.isAbsolute(path) || /^[A-Za-z]:\\/.test(path) || path.startsWith('\\\\');
  if (isFilesystemRoot(path)) throw new FolderPathError(input, 'root');
  if (!absolute) throw new FolderPathError(input, 'relative');
  if (options.confirmHome !== true && isHomeFolder(path)) throw new FolderPathError(input, 'home');
  return path;
}

function isHomeFolder(path: string): boolean {
  let home: string;
  try {
    home = normalizeFolderPath(homedir());
  } catch {
    return false;
  }
  return home.includes('\\') ? path.toLowerCase() === home.toLowerCase() : path === home;
}

/** True when `path` is `folder` or lies below it. */
export function isUnderFolder(path: string, folder: string): boolean {
  if (path === folder) return true;
  const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  const base = folder.endsWith(sep) ? folder : folder + sep;
  return path.startsWith(base);
}

/**
 * Folders that conversations ran in (git root preferred over cwd) which no project folder covers, most
 * sessions first (at most `limit`, default 50); a filesystem root or a relative cwd is never suggested. Suggestions only: choosing one goes through
 * projectForFolder() to get a stable project id.
 */
export function discoveredFolders(db: RecallDatabase, options: { limit?: number } = {}): DiscoveredFolder[] {
  const rows = db.raw
    .prepare(
      `select coalesce(git_repo_root, cwd) as path, count(*) as n from sessions
       where hidden = 0 and coalesce(git_repo_root, cwd) is not null and coalesce(git_repo_root, cwd) <> ''
       group by 1 order by n desc, path`,
    )
    .all() as { path: string; n: number }[];
  const folders = (db.raw.prepare('select path from project_folders').pluck().all() as string[]).map((p) => p);
  const out: DiscoveredFolder[] = [];
  const seen = new Map<string, DiscoveredFolder>();
  for (const row of rows) {
    let path: string;
    try {
      // Only paths that can become a project folder (the home folder can, once confirmed).
      path = projectFolderPath(row.path, { confirmHome: true });
    } catch {
      continue;
    }
    if (folders.some((f) => isUnderFolder(path, f))) continue;
    const existing = seen.get(path);
    if (existing) existing.sessionCount += row.n;
    else {
      const entry = { path, sessionCount: row.n };
      seen.set(path, entry);
      out.push(entry);
    }
  }
  return out.slice(0, options.limit ?? 50);
}
