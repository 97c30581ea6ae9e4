/**
 * The contract must load in a browser as well as in Node: its source may import nothing but zod
 * and its own files (no Node built-ins, no SQLite, no other @recall package), use no Node globals,
 * and the package may depend on nothing but zod. turbo boundaries checks the package graph; this
 * test checks the source text, which boundaries cannot see (e.g. a `node:fs` import).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(pkgDir, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every module specifier of a source text: static imports/exports, dynamic import(), require(). */
function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const re of [
    /\b(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const m of code.matchAll(re)) found.push(m[1]!);
  }
  return found;
}

const NODE_GLOBALS = /\b(process\.|Buffer\b|__dirname\b|__filename\b|require\s*\(|setImmediate\b)/;

/** Why a specifier is not allowed in `file`, or null when it is. */
function problem(file: string, spec: string): string | null {
  if (spec === 'zod') return null;
  if (spec.startsWith('./') || spec.startsWith('../')) {
    const target = resolve(dirname(file), spec);
    return relative(srcDir, target).startsWith('..') ? `${spec} leaves src/` : null;
  }
  return `${spec} is neither zod nor a file of this package`;
}

const files = sourceFiles(srcDir);

describe('the detector itself', () => {
  test.each([
    ["import { readFileSync } from 'node:fs';", 'node:fs'],
    ["import type { Session } from '@recall/store';", '@recall/store'],
    ["export { x } from 'better-sqlite3';", 'better-sqlite3'],
    ["const m = await import('node:path');", 'node:path'],
    ["import 'node:process';", 'node:process'],
  ])('flags %s', (text, spec) => {
    const specs = specifiers(text);
    expect(specs).toContain(spec);
    expect(problem(join(srcDir, 'x.ts'), spec)).not.toBeNull();
  });

  test.each([["import { z } from 'zod';"], ["import { MESSAGE_ROLES } from './vocabulary.js';"], ["import type { MethodSpec } from '../method-spec.js';"]])(
    'accepts %s',
    (text) => {
      for (const spec of specifiers(text)) expect(problem(join(srcDir, 'methods', 'x.ts'), spec)).toBeNull();
    },
  );

  test('flags Node globals', () => {
    expect(NODE_GLOBALS.test('const n = Buffer.byteLength(s);')).toBe(true);
    expect(NODE_GLOBALS.test('const home = process.env.HOME;')).toBe(true);
    expect(NODE_GLOBALS.test("const s = z.string().describe('a process');")).toBe(false);
  });
});

describe('src/ imports only zod and its own files', () => {
  test('there is source to check', () => {
    expect(files.length).toBeGreaterThan(8);
  });

  test.each(files.map((f) => [relative(pkgDir, f), f] as const))('%s', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const bad = specifiers(text)
      .map((s) => problem(file, s))
      .filter((p): p is string => p !== null);
    expect(bad).toEqual([]);
    const code = text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/(['"`])(?:\\.|(?!\1).)*\1/g, "''");
    expect(code).not.toMatch(NODE_GLOBALS);
  });
});

test('package.json depends on zod only, as a peer (one zod instance shared with the consumer)', () => {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
  expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['zod']);
});
