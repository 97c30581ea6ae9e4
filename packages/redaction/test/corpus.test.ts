/**
 * The fake-secret corpus (test/support/fake-secrets.ts, generated fresh each run) must be caught in
 * full: every secret disappears (no 10-character piece of it is left) and is reported as its kind.
 */
import { describe, expect, test } from 'vitest';
import { createRedactor, placeholder, redact } from '../src/index.js';
import { fakeSecretCorpus } from '../src/fake-secrets.js';

const corpus = fakeSecretCorpus();

function leftovers(secret: string, output: string, width = 10): string[] {
  const out: string[] = [];
  const s = secret.replace(/\s+/g, ' ');
  for (let i = 0; i + width <= s.length; i++) {
    const piece = s.slice(i, i + width);
    if (/\s/.test(piece)) continue;
    if (output.includes(piece)) out.push(piece);
  }
  return out;
}

describe('the fake-secret corpus is caught in full', () => {
  test('the corpus covers every required family', () => {
    const kinds = new Set(corpus.map((c) => c.kind));
    for (const k of ['openai_key', 'anthropic_key', 'github_token', 'gitlab_token', 'slack_token', 'slack_webhook', 'google_api_key', 'aws_access_key_id', 'aws_secret_access_key', 'stripe_key', 'jwt', 'pem_private_key', 'authorization', 'url_password', 'secret_assignment', 'private']) {
      expect(kinds, k).toContain(k);
    }
    expect(corpus.length).toBeGreaterThanOrEqual(45);
  });

  test.each(corpus.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = redact(c.text);
    expect(leftovers(c.secret, r.text), r.text).toEqual([]);
    expect(r.text).toContain(placeholder(c.kind));
    expect(r.counts[c.kind]).toBeGreaterThanOrEqual(1);
    // Spans point into the original text and are in order.
    for (const s of r.spans) expect(s.end).toBeGreaterThan(s.start);
    for (let i = 1; i < r.spans.length; i++) expect(r.spans[i]!.start).toBeGreaterThanOrEqual(r.spans[i - 1]!.end);
  });

  test('all of them at once, in one text, are caught with one placeholder each', () => {
    const text = corpus.map((c) => c.text).join('\n\n');
    const r = redact(text);
    for (const c of corpus) expect(leftovers(c.secret, r.text), c.name).toEqual([]);
    const total = Object.values(r.counts).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(corpus.length);
  });

  test('inside search-snippet highlight marks («») they are still caught', () => {
    const redactor = createRedactor({ ignoreChars: '«»' });
    const r = redactor.redact('DB_«PASSWORD»=hunter2hunter2 and «ghp»_' + 'a'.repeat(36));
    expect(r.text).toBe('DB_«PASSWORD»=[redacted:secret_assignment] and «[redacted:github_token]');
  });

  // A snippet folds a YAML block onto one line; a generated password may hold no digit at all.
  test.each([
    ['digits', 'db: user: app password: hunter2hunter host: db'],
    ['letters only, mixed case', 'db: user: app password: xKqPzRtWmNvB host: db'],
    ['letters only, leading capital then mixed', 'db: user: app password: QwErTyUiOpAs host: db'],
  ])('a folded YAML password (%s) is caught', (_name, text) => {
    const r = redact(text);
    expect(r.text).toBe('db: user: app password: [redacted:secret_assignment] host: db');
  });
});

describe('ordinary text is left alone', () => {
  test.each([
    ['prose', 'We talked about the task-management app and sk-learn pipelines last week.'],
    ['bearer in prose', 'I am the bearer of bad news, the authorization form is due Monday.'],
    ['Key: in prose', 'Key: the main idea is to rest more.'],
    ['secret: in prose', 'Here is my secret: I practice every morning, and the token: a small gift.'],
    ['password: in prose, one word', 'The login form asks for a password: Required, and the token: expired yesterday.'],
    ['a counted token setting', 'MAX_TOKENS=4096\nTOKEN_LIMIT=2000\nsort_key=name\ncacheKey = userId'],
    ['variable references', 'DB_PASSWORD=$DB_PASSWORD\nAPI_KEY=${API_KEY}\nSECRET=<your secret here>'],
    ['boolean settings', 'USE_PASSWORD=true\nREQUIRE_TOKEN=false'],
    ['URLs without passwords', 'see http://localhost:3000/@user and git@github.com:org/repo.git and ssh://git@host:22/x'],
    ['emails and handles', 'mail bob@example.com or @alice'],
    ['Chinese', '上次我们聊到了密码学和令牌桶算法，还有 API 的设计。'],
    ['a publishable Stripe key (public by design)', `pk_live_${'a1B2'.repeat(6)}`],
    ['a short sk- word', 'sk-8 and sk-ant are not keys'],
    ['a PEM public key', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----'],
  ])('%s', (_name, text) => {
    const r = redact(text);
    expect(r.spans).toEqual([]);
    expect(r.text).toBe(text);
  });
});
