/**
 * Folder paths typed or suggested in the desktop: only absolute paths can be project folders (the
 * gateway refuses the rest with `invalid_folder`, and the filesystem root always); the user's home
 * folder only once they confirm it (the gateway refuses it without `confirmHome`). No React, no I/O.
 */
import { RpcError } from '../rpc';

/** An absolute POSIX path, or a Windows drive / UNC path. */
export function isAbsoluteFolder(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

/** The sentence for a folder field that is not an absolute path (null when it is, or empty). */
export function folderProblem(path: string | undefined): string | null {
  const p = path?.trim() ?? '';
  if (p === '' || isAbsoluteFolder(p)) return null;
  return `“${p}” is not a full path. Give the folder’s whole path, starting with / (for example /home/you/src/project).`;
}

/** Did the gateway refuse this folder because it is the user's home folder (confirmable)? */
export function isHomeRefusal(err: unknown): boolean {
  if (!(err instanceof RpcError) || err.dataCode !== 'invalid_folder') return false;
  const d = err.data;
  return !!d && typeof d === 'object' && (d as { reason?: unknown }).reason === 'home';
}
