/**
 * `@recall/store/portable` loads no SQLite: following its runtime imports (type-only imports
 * erased) from src/portable.ts never reaches @recall/schema or better-sqlite3, so a PostgreSQL-only
 * deployment can use the store's rules and errors. The same walk from src/index.ts does reach them
 * (so the walk is not vacuous).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as portable from '../src/portable.js';
import * as store from '../src/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function runtimeImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of code.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)) out.push(m[1]!);
  return out;
}

function reached(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.add(spec);
    }
  };
  visit(join(SRC, entry));
  return external;
}

describe('@recall/store/portable', () => {
  it('reaches neither @recall/schema nor better-sqlite3; the main entry does', () => {
    const deps = reached('portable.ts');
    expect([...deps].filter((d) => d.startsWith('@recall/schema') || d.startsWith('better-sqlite3'))).toEqual([]);
    expect([...reached('index.ts')]).toContain('@recall/schema');
  });

  it('exports the very same error classes as the main entry', () => {
    expect(portable.ProjectNotFoundError).toBe(store.ProjectNotFoundError);
    expect(new portable.SessionExistsError('s1')).toBeInstanceOf(store.StoreError);
  });
});
