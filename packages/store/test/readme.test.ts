import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { readmeExamples, runExample } from '@recall/config/readme-example';
const examples = readmeExamples(fileURLToPath(new URL('..', import.meta.url)));
describe('README example', () => {
  test('there is one', () => expect(examples.length).toBeGreaterThan(0));
  test.each(examples.map((e) => [e.file, e] as const))('%s is shown exactly and runs', async (_f, e) => {
    expect(e.shownCode).toBe(e.fileCode);
    const out = await runExample(e.file);
    if (e.shownOutput !== null) expect(out).toBe(e.shownOutput);
  });
});
