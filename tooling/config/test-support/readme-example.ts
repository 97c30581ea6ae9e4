/**
 * README examples that cannot rot: a package's README shows one example program — the TypeScript
 * block right after the line `<!-- example: examples/NAME.ts -->` — and that block must be exactly the
 * file `examples/NAME.ts` of the package, which `tsc` type-checks with the package (add "examples" to
 * the tsconfig's include) and the package's test/readme.test.ts runs. When the README has an
 * ```text block right after the code, the program's console output must equal it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

/** One README example: the file it names, the code shown, and the output shown (if any). */
export interface ReadmeExample {
  readonly file: string;
  readonly shownCode: string;
  readonly fileCode: string;
  readonly shownOutput: string | null;
}

/** Every example of `<packageDir>/README.md`, in order. */
export function readmeExamples(packageDir: string): ReadmeExample[] {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const out: ReadmeExample[] = [];
  const marker = /<!-- example: ([\w./-]+\.ts) -->\s*\n```ts\n([\s\S]*?)\n```(?:\s*\n```text\n([\s\S]*?)\n```)?/g;
  for (const m of readme.matchAll(marker)) {
    const file = join(packageDir, m[1]!);
    out.push({ file, shownCode: m[2]!, fileCode: readFileSync(file, 'utf8').replace(/\n$/, ''), shownOutput: m[3] ?? null });
  }
  return out;
}

/** Runs an example module in this process and returns what it printed with console.log. */
export async function runExample(file: string): Promise<string> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
  try {
    await import(`${pathToFileURL(file).href}?run=${Date.now()}`);
  } finally {
    console.log = original;
  }
  return lines.join('\n');
}

/**
 * The README test of a package, in one call from its test/readme.test.ts:
 * `describeReadmeExamples(import.meta.url)` — there is at least one example, each is shown exactly
 * as its file, runs, and prints what the README shows.
 */
export function describeReadmeExamples(testFileUrl: string): void {
  const examples = readmeExamples(fileURLToPath(new URL('..', testFileUrl)));
  describe('README example', () => {
    test('there is one', () => expect(examples.length).toBeGreaterThan(0));
    test.each(examples.map((e) => [e.file, e] as const))('%s is shown exactly and runs', async (_file, example) => {
      expect(example.shownCode).toBe(example.fileCode);
      const out = await runExample(example.file);
      if (example.shownOutput !== null) expect(out).toBe(example.shownOutput);
    });
  });
}
