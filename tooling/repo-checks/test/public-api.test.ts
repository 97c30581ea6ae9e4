/**
 * The public API of every publishable package is what its `exports` map names. Each entry point's
 * exports must carry TSDoc (on the declaration or on the export line), and no name may be exported
 * by two packages (one name, one home: a consumer imports each thing from exactly one package).
 * Read with the TypeScript compiler over the sources, so it checks what `tsc` emits.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

interface Entry {
  pkg: string;
  subpath: string;
  file: string;
}

function publishableEntries(): Entry[] {
  const out: Entry[] = [];
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(REPO, group))) {
      const manifestPath = join(REPO, group, dir, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; exports?: Record<string, { source?: string } | string> };
      // Every library under packages/ and the CLI are published (tooling/* and the desktop UI never are).
      if ((group === 'apps' && dir !== 'cli') || !manifest.exports) continue;
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        const source = typeof target === 'object' ? target.source : undefined;
        if (source && source.endsWith('.ts')) out.push({ pkg: manifest.name, subpath, file: join(REPO, group, dir, source) });
      }
    }
  }
  return out;
}

const entries = publishableEntries();
const program = ts.createProgram(
  entries.map((e) => e.file),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2023, customConditions: ['source'], skipLibCheck: true, noEmit: true, strict: true, allowJs: false, types: ['node'] },
);
const checker = program.getTypeChecker();

function hasDoc(symbol: ts.Symbol): boolean {
  if (symbol.getDocumentationComment(checker).length > 0) return true;
  // The export line itself may carry the comment (`/** … */ export { x } from './x.js';`).
  for (const decl of symbol.declarations ?? []) {
    let node: ts.Node | undefined = decl;
    while (node && !ts.isExportDeclaration(node) && !ts.isSourceFile(node)) node = node.parent;
    const full = decl.getSourceFile().getFullText();
    const target = node && ts.isExportDeclaration(node) ? node : decl;
    const ranges = ts.getLeadingCommentRanges(full, target.getFullStart()) ?? [];
    // Only a comment right above the line counts: a file's header comment (a blank line after it) does not.
    const start = target.getStart();
    if (ranges.some((r) => full.slice(r.pos, r.pos + 3) === '/**' && /^[ \t]*\r?\n?[ \t]*$/.test(full.slice(r.end, start)))) return true;
  }
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return target !== symbol && target.getDocumentationComment(checker).length > 0;
}

function exportsOf(entry: Entry): ts.Symbol[] {
  const source = program.getSourceFile(entry.file);
  if (!source) throw new Error(`${entry.file} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  return moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
}

describe('public API', () => {
  test('there are entry points to check', () => {
    expect(entries.length).toBeGreaterThan(5);
  });

  test.each(entries.map((e) => [`${e.pkg}${e.subpath === '.' ? '' : e.subpath.slice(1)}`, e] as const))('%s: every export has TSDoc', (_name, entry) => {
    const undocumented = exportsOf(entry)
      .filter((s) => !hasDoc(s))
      .map((s) => s.getName());
    expect(undocumented).toEqual([]);
  });

  test('one name, one home: no name is exported by two packages', () => {
    const homes = new Map<string, Set<string>>();
    for (const entry of entries) {
      for (const symbol of exportsOf(entry)) {
        const set = homes.get(symbol.getName()) ?? new Set<string>();
        set.add(entry.pkg);
        homes.set(symbol.getName(), set);
      }
    }
    const shared = [...homes].filter(([, pkgs]) => pkgs.size > 1).map(([name, pkgs]) => `${name}: ${[...pkgs].sort().join(', ')}`);
    expect(shared).toEqual([]);
  });
});
