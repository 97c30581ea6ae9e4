/** Extra patterns, the allow-list, the pattern safety check, private-span blanking and the per-surface policy. */
import { describe, expect, test } from 'vitest';
import { blankPrivate, compileUserPattern, createRedactor, isSecretName, RedactionPatternError, RedactionPolicy, unsafePatternReason } from '../src/index.js';

describe('extra patterns', () => {
  test('a named kind, whole match or only the `secret` group', () => {
    const r = createRedactor({
      extraPatterns: [
        { name: 'acme_key', pattern: 'acme_[a-z0-9]{16}' },
        { name: 'employee_id', pattern: 'EMP-(?<secret>[0-9]{6})', flags: 'i' },
      ],
    }).redact('key acme_0123456789abcdef, badge emp-123456');
    expect(r.text).toBe('key [redacted:acme_key], badge emp-[redacted:employee_id]');
    expect(r.counts).toEqual({ acme_key: 1, employee_id: 1 });
  });

  test.each([
    ['catastrophic nesting', { name: 'bad', pattern: '(a+)+$' }],
    ['repeated alternation', { name: 'bad', pattern: '(?:a|aa)*b' }],
    ['backreference', { name: 'bad', pattern: '(a)\\1' }],
    ['invalid syntax', { name: 'bad', pattern: '(' }],
    ['too long', { name: 'bad', pattern: 'a'.repeat(600) }],
    ['empty match', { name: 'bad', pattern: 'a*' }],
    ['bad flags', { name: 'bad', pattern: 'a', flags: 'y' }],
    ['bad name', { name: 'Bad-Name', pattern: 'a' }],
    ['built-in name', { name: 'github_token', pattern: 'a' }],
  ])('refused: %s', (_name, pattern) => {
    let error: unknown;
    try {
      createRedactor({ extraPatterns: [pattern] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RedactionPatternError);
    expect((error as RedactionPatternError).code).toBe('invalid_redaction_pattern');
  });

  test('too many patterns are refused', () => {
    expect(() => createRedactor({ extraPatterns: Array.from({ length: 33 }, (_, i) => ({ name: `p${i}`, pattern: `x${i}y` })) })).toThrow(RedactionPatternError);
  });

  test.each([
    ['(a+)+', false],
    ['(a*)*', false],
    ['(?:ab|cd)+', false],
    ['([a-z]+)+x', false],
    ['(?<n>a+)+', false],
    ['[a-z]+_[0-9]{4}', true],
    ['(?:foo)-[0-9]+', true],
    ['(?<=key=)[A-Z0-9]{12}', true],
    ['\\(a+\\)+', true],
  ])('static check of %s: safe = %s', (source, safe) => {
    expect(unsafePatternReason(source) === null).toBe(safe);
  });

  test('compileUserPattern adds g and d', () => {
    const re = compileUserPattern('t', 'ab', 'i');
    expect(re.flags).toBe('dgi');
  });
});

describe('the allow-list', () => {
  test('literals and full-match patterns are kept; <private> never is', () => {
    const redactor = createRedactor({ allow: ['AKIAIOSFODNN7EXAMPLE', /sk_test_[0-9]+/, { pattern: 'ghp_0{36}' }] });
    const text = `docs key AKIAIOSFODNN7EXAMPLE, test sk_test_1234567890, ghp_${'0'.repeat(36)}, <private>x</private>, real sk_test_abcdefghijkl`;
    expect(redactor.redactText(text)).toBe(`docs key AKIAIOSFODNN7EXAMPLE, test sk_test_1234567890, ghp_${'0'.repeat(36)}, [redacted:private], real [redacted:stripe_key]`);
  });
});

describe('secret-looking names', () => {
  test.each([
    ['PASSWORD', true], ['DB_PASSWORD', true], ['GITHUB_TOKEN', true], ['OPENAI_API_KEY', true], ['STRIPE_KEY', true], ['SECRET_KEY_BASE', true],
    ['spring.datasource.password', true], ['apiKey', true], ['client_secret', true], ['auth', true],
    ['MAX_TOKENS', false], ['sort_key', false], ['cacheKey', false], ['TOKEN_LIMIT', false], ['monkey', false], ['key', false], ['KEY', false],
  ])('%s → %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });
});

describe('blankPrivate (what is indexed locally)', () => {
  const sp = (n: number): string => ' '.repeat(n);
  test.each([
    ['a <private>b</private> c', `a ${sp(20)} c`],
    ['<PRIVATE>x</Private> y', `${sp(20)} y`],
    ['open <private>rest of it', `open ${sp(19)}`],
    ['no tags', 'no tags'],
    ['private text</private> public', `${sp(22)} public`],
    ['<private>1</private> and <private>2</private>', `${sp(20)} and ${sp(20)}`],
  ])('%j', (input, output) => {
    expect(blankPrivate(input)).toBe(output);
    expect(blankPrivate(input).length).toBe(input.length);
  });
});

describe('mask (same length)', () => {
  test('spans are overwritten in place; short ones become stars', () => {
    const token = `ghp_${'a'.repeat(36)}`;
    const text = `a ${token} b\nDB_PASSWORD=abc c`;
    const { text: masked, counts } = createRedactor().mask(text);
    expect(masked.length).toBe(text.length);
    expect(masked).toBe(`a [redacted:github_token]${' '.repeat(token.length - 23)} b\nDB_PASSWORD=*** c`);
    expect(counts).toEqual({ github_token: 1, secret_assignment: 1 });
  });
});

describe('RedactionPolicy', () => {
  test('counts per surface and kind; a surface switched off still hides <private>', () => {
    const policy = new RedactionPolicy({ surfaces: { chat: false } });
    const text = `token ghp_${'a'.repeat(36)} <private>p</private>`;
    expect(policy.text('embedding')(text)).toBe('token [redacted:github_token] [redacted:private]');
    expect(policy.text('chat')(text)).toBe(`token ghp_${'a'.repeat(36)} [redacted:private]`);
    expect(policy.value('search_results', { results: [{ snippet: text, n: 1 }] })).toEqual({ results: [{ snippet: 'token [redacted:github_token] [redacted:private]', n: 1 }] });
    expect(policy.stats()).toEqual({
      surfaces: {
        embedding: { enabled: true, redactions: 2, byKind: { github_token: 1, private: 1 } },
        chat: { enabled: false, redactions: 1, byKind: { private: 1 } },
        search_results: { enabled: true, redactions: 2, byKind: { github_token: 1, private: 1 } },
      },
    });
  });
});
