/**
 * Lists the files under a path (the path itself when it is a file), recursively, without following
 * symbolic links, in a stable order. Used to find transcripts under a source's folder.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function listFiles(path: string, accept: (name: string) => boolean): string[] {
  const stat = statSync(path);
  if (stat.isFile()) return [path];
  const out: string[] = [];
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: skipped, like a vanished one
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile() && accept(entry.name)) out.push(full);
    }
  }
  return out.sort();
}
