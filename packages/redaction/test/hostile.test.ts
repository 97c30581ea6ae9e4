/**
 * Linear time on hostile input: 1 MB texts built to hit each rule's worst case (long runs of a
 * prefix, unclosed blocks, a start at every position) must be redacted quickly. A backtracking
 * (quadratic or worse) rule takes minutes on these; the bound below is generous for a busy machine.
 */
import { describe, expect, test } from 'vitest';
import { createRedactor, redact } from '../src/index.js';

const MB = 1 << 20;
const fill = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
const BOUND_MS = 3_000;

const hostile: Array<[string, string]> = [
  ['one letter', fill('a')],
  ['letters and digits', fill('a1')],
  ['sk- runs', fill('sk-')],
  ['sk-ant- runs', fill('sk-ant-')],
  ['sk-proj- runs', fill('sk-proj-')],
  ['ghp_ runs', fill('ghp_')],
  ['github_pat_ runs', fill('github_pat_')],
  ['glpat- runs', fill('glpat-')],
  ['xoxb- runs', fill('xoxb-')],
  ['AIza runs', fill('AIza')],
  ['AKIA runs', fill('AKIA')],
  ['aws secret runs', fill('aws secret ')],
  ['eyJ runs', fill('eyJ')],
  ['eyJ. runs', fill('eyJaaaaaaaaa.')],
  ['unclosed PEM headers', fill('-----BEGIN PRIVATE KEY-----\n')],
  ['PEM headers, one END at the end', fill('-----BEGIN PRIVATE KEY-----\n') + '-----END PRIVATE KEY-----'],
  ['PEM header then base64', '-----BEGIN RSA PRIVATE KEY-----\n' + fill('QUJD')],
  ['unclosed <private>', fill('<private>')],
  ['<private> pairs', fill('<private>x</private>')],
  ['authorization headers', fill('Authorization: Bearer ')],
  ['bearer runs', fill('bearer ')],
  ['x-api-key runs', fill('x-api-key: ')],
  [':// runs', fill('://')],
  ['://a: runs', fill('://a:')],
  ['user:pass without @', '://' + fill('a:')],
  ['KEY= lines', fill('API_KEY=\n')],
  ['inline KEY= runs', fill(' API_KEY=')],
  ['inline names', fill(' ' + 'a'.repeat(120))],
  ['inline colons', fill(' password:')],
  ['long names', fill('A_'.repeat(200) + '=x\n')],
  ['long line with =', fill('PASSWORD:') ],
  ['JSON quotes', fill('"password": "')],
  ['JSON keys', fill('"a":"b",')],
  ['spaces', fill(' ')],
  ['newlines', fill('\n')],
  ['highlight marks', fill('«a»')],
];

describe('hostile 1 MB inputs finish fast', () => {
  test.each(hostile)('%s', (_name, text) => {
    expect(text.length).toBeGreaterThanOrEqual(MB);
    const started = performance.now();
    const r = redact(text);
    const ms = performance.now() - started;
    expect(ms, `${ms.toFixed(0)} ms`).toBeLessThan(BOUND_MS);
    // Output stays bounded: at most the input plus one placeholder per span.
    expect(r.text.length).toBeLessThanOrEqual(text.length + r.spans.length * 40);
  });

  test('the same with highlight marks skipped (the search-result surface)', () => {
    const redactor = createRedactor({ ignoreChars: '«»' });
    for (const [name, text] of hostile.slice(0, 8)) {
      const started = performance.now();
      redactor.redact(text);
      expect(performance.now() - started, name).toBeLessThan(BOUND_MS);
    }
  });
});
