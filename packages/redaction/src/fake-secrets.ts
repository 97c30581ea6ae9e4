/**
 * Realistic FAKE secrets for tests, generated fresh on every call from random bytes: the right
 * prefixes, alphabets and lengths, and the CRC32 checksum where the format has one (GitHub and npm
 * tokens). None of them is, or was ever, a real credential. Used by this package's tests and by the
 * loopback tests of the surfaces (semantic, chat, MCP) through `@recall/redaction/internal`.
 */

const rng = (globalThis as unknown as { crypto: { getRandomValues(a: Uint32Array): Uint32Array } }).crypto;

/** A uniform integer in [min, max). */
function randomInt(min: number, max?: number): number {
  const [lo, hi] = max === undefined ? [0, min] : [min, max];
  const buf = rng.getRandomValues(new Uint32Array(2));
  const r = (buf[0]! * 2 ** 21 + (buf[1]! >>> 11)) / 2 ** 53; // 53 random bits in [0, 1)
  return lo + Math.floor(r * (hi - lo));
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = randomInt(256);
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE) of an ASCII string. */
export function crc32(text: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64(bytes: Uint8Array, url = false): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = [B64[(n >> 18) & 63], B64[(n >> 12) & 63], i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=', i + 2 < bytes.length ? B64[n & 63] : '='];
    out += chars.join('');
  }
  return url ? out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : out;
}
/** Bytes of an ASCII string (every generated text is ASCII). */
const utf8 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UPPER_BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const URLSAFE = BASE62 + '_-';
const BASE64 = BASE62 + '+/';

/** `length` characters drawn uniformly from `alphabet`. */
export function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

function base62(n: number, width: number): string {
  let out = '';
  let v = n >>> 0;
  while (v > 0) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, '0');
}

/** GitHub's token format: prefix + 30 random base62 + base62(CRC32 of the 30), 6 wide. */
export function githubToken(prefix: 'ghp' | 'gho' | 'ghu' | 'ghs' | 'ghr'): string {
  const body = randomFrom(BASE62, 30);
  return `${prefix}_${body}${base62(crc32(body), 6)}`;
}

/** npm's token format: `npm_` + 30 random base62 + base62(CRC32), 6 wide. */
export function npmToken(): string {
  const body = randomFrom(BASE62, 30);
  return `npm_${body}${base62(crc32(body), 6)}`;
}

const b64url = (s: string | Uint8Array): string => base64(typeof s === 'string' ? utf8(s) : s, true);

/** An HS256 JWT with a random subject and a random 32-byte signature. */
export function jwt(): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub: randomFrom(BASE62, 12), iat: 1_700_000_000 + randomInt(1_000_000), scope: 'repo read' }));
  return `${header}.${payload}.${b64url(randomBytes(32))}`;
}

/** A PEM block of random DER-sized bytes (64-character lines, as openssl writes them). */
function pem(label: string, bytes: number, prefix = ''): string {
  const body = (prefix + base64(randomBytes(bytes))).replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

/** PKCS#8 (`PRIVATE KEY`, ed25519 size), SEC1 (`EC PRIVATE KEY`, P-256 size), PKCS#1 (`RSA PRIVATE KEY`, 2048-bit size). */
export function pemPrivateKey(type: 'ed25519' | 'ec' | 'rsa-pkcs1'): string {
  if (type === 'ed25519') return pem('PRIVATE KEY', 48, 'MC4CAQAwBQYDK2VwBCIEI');
  if (type === 'ec') return pem('EC PRIVATE KEY', 121, 'MHcCAQEEI');
  return pem('RSA PRIVATE KEY', 1190, 'MIIEowIBAAKCAQEA');
}

/** An OpenSSH private key block of random bytes. */
export function opensshPrivateKey(): string {
  const body = base64(randomBytes(300)).replace(/(.{70})/g, '$1\n');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${body}\n-----END OPENSSH PRIVATE KEY-----`;
}

/** One corpus case: a secret, the kind it must be reported as, and the text it is pasted in. */
export interface FakeSecretCase {
  name: string;
  kind: string;
  secret: string;
  text: string;
}

/** The corpus: every detected format, in the kinds of text agents paste (logs, shell, .env, JSON, prose). */
export function fakeSecretCorpus(): FakeSecretCase[] {
  const cases: FakeSecretCase[] = [];
  const add = (name: string, kind: string, secret: string, text: (s: string) => string): void => {
    cases.push({ name, kind, secret, text: text(secret) });
  };
  add('OpenAI legacy key', 'openai_key', `sk-${randomFrom(BASE62, 20)}T3BlbkFJ${randomFrom(BASE62, 20)}`, (s) => `Use this key: ${s} for the test.`);
  add('OpenAI project key', 'openai_key', `sk-proj-${randomFrom(URLSAFE, 156)}`, (s) => `curl https://api.openai.com/v1/models -H "x: 1" # key ${s}`);
  add('OpenAI service account key', 'openai_key', `sk-svcacct-${randomFrom(URLSAFE, 120)}`, (s) => `client = OpenAI(api_key='${s}')`);
  add('Anthropic key', 'anthropic_key', `sk-ant-api03-${randomFrom(URLSAFE, 93)}AA`, (s) => `ANTHROPIC says: key=${s}.`);
  add('Anthropic admin key', 'anthropic_key', `sk-ant-admin01-${randomFrom(URLSAFE, 93)}AA`, (s) => `(${s})`);
  for (const p of ['ghp', 'gho', 'ghu', 'ghs', 'ghr'] as const) add(`GitHub ${p}_ token`, 'github_token', githubToken(p), (s) => `git clone https://x:${'y'}@github.com/o/r.git; token ${s}`);
  add('GitHub fine-grained PAT', 'github_token', `github_pat_${randomFrom(BASE62, 22)}_${randomFrom(BASE62, 59)}`, (s) => `echo "${s}" | gh auth login --with-token`);
  add('GitLab PAT', 'gitlab_token', `glpat-${randomFrom(URLSAFE, 20)}`, (s) => `PRIVATE-TOKEN header is ${s}`);
  add('Slack bot token', 'slack_token', `xoxb-${randomInt(1e11, 1e12)}-${randomInt(1e11, 1e12)}-${randomFrom(BASE62, 24)}`, (s) => `slack token ${s}`);
  add('Slack user token', 'slack_token', `xoxp-${randomInt(1e11, 1e12)}-${randomInt(1e11, 1e12)}-${randomInt(1e11, 1e12)}-${randomFrom('0123456789abcdef', 32)}`, (s) => `${s}`);
  add('Slack app token', 'slack_token', `xapp-1-A${randomFrom(UPPER_BASE32, 10)}-${randomInt(1e12, 1e13)}-${randomFrom('0123456789abcdef', 64)}`, (s) => `app: ${s}`);
  add('Slack webhook', 'slack_webhook', `https://hooks.slack.com/services/T${randomFrom(UPPER_BASE32, 8)}/B${randomFrom(UPPER_BASE32, 10)}/${randomFrom(BASE62, 24)}`, (s) => `POST to ${s} with the payload`);
  add('Google API key', 'google_api_key', `AIza${randomFrom(URLSAFE, 35)}`, (s) => `https://maps.googleapis.com/maps/api/js?key=${s}&callback=init`);
  add('AWS access key id', 'aws_access_key_id', `AKIA${randomFrom(UPPER_BASE32, 16)}`, (s) => `aws_access_key_id = ${s}`);
  add('AWS temporary key id', 'aws_access_key_id', `ASIA${randomFrom(UPPER_BASE32, 16)}`, (s) => `"AccessKeyId": "${s}",`);
  add('AWS secret key in ~/.aws/credentials', 'aws_secret_access_key', randomFrom(BASE64, 40), (s) => `[default]\naws_secret_access_key = ${s}\n`);
  add('AWS secret key in prose', 'aws_secret_access_key', randomFrom(BASE64, 40), (s) => `The AWS secret is ${s} (rotate it).`);
  add('AWS secret key in env', 'aws_secret_access_key', randomFrom(BASE64, 40), (s) => `export AWS_SECRET_ACCESS_KEY=${s}`);
  add('Stripe live secret key', 'stripe_key', `sk_live_${randomFrom(BASE62, 99)}`, (s) => `Stripe::api_key = "${s}"`);
  add('Stripe restricted key', 'stripe_key', `rk_live_${randomFrom(BASE62, 99)}`, (s) => `${s}`);
  add('Stripe test key', 'stripe_key', `sk_test_${randomFrom(BASE62, 24)}`, (s) => `test mode ${s}`);
  add('Stripe webhook secret', 'stripe_key', `whsec_${randomFrom(BASE62, 32)}`, (s) => `signing secret ${s}`);
  add('npm token', 'npm_token', npmToken(), (s) => `//registry.npmjs.org/:_authToken=${s}`);
  add('Hugging Face token', 'huggingface_token', `hf_${randomFrom(BASE62, 34)}`, (s) => `huggingface-cli login --token ${s}`);
  add('JWT', 'jwt', jwt(), (s) => `the cookie was session=${s}; Path=/`);
  add('PEM PKCS#8 key', 'pem_private_key', pemPrivateKey('ed25519').trim(), (s) => `Here is the key:\n${s}\nkeep it safe`);
  add('PEM EC key', 'pem_private_key', pemPrivateKey('ec').trim(), (s) => `cat key.pem\n${s}`);
  add('PEM RSA key', 'pem_private_key', pemPrivateKey('rsa-pkcs1').trim(), (s) => `${s}`);
  add('OpenSSH key', 'pem_private_key', opensshPrivateKey(), (s) => `~/.ssh/id_ed25519:\n${s}\n`);
  add('Authorization Bearer', 'authorization', randomFrom(URLSAFE, 40), (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com`);
  add('Authorization Basic', 'authorization', base64(utf8(`admin:${randomFrom(BASE62, 16)}`)), (s) => `Authorization: Basic ${s}`);
  add('Authorization token', 'authorization', randomFrom('0123456789abcdef', 40), (s) => `headers = {"Authorization": "token ${s}"}`);
  add('x-api-key header', 'authorization', randomFrom(BASE62, 32), (s) => `x-api-key: ${s}`);
  add('bare Bearer token in a log', 'authorization', randomFrom(URLSAFE, 48), (s) => `GET /v1/items 401 (Bearer ${s})`);
  add('password in a postgres URL', 'url_password', randomFrom(BASE62, 18), (s) => `DATABASE_URL_RO is postgres://app:${s}@db.internal:5432/app`);
  add('password in an https URL', 'url_password', randomFrom(BASE62, 12), (s) => `pip install --index-url https://deploy:${s}@pypi.example.com/simple pkg`);
  add('.env password', 'secret_assignment', randomFrom(BASE62, 14), (s) => `# .env\nNODE_ENV=production\nDB_PASSWORD=${s}\nPORT=3000`);
  add('.env quoted key', 'secret_assignment', randomFrom(BASE62 + '!@#%^&*', 24), (s) => `export MAILGUN_API_KEY="${s}"`);
  add('.env single-quoted secret', 'secret_assignment', randomFrom(BASE62, 30), (s) => `SECRET_KEY_BASE='${s}'`);
  add('.env custom _KEY', 'secret_assignment', randomFrom(BASE62, 32), (s) => `SENDGRID_KEY=${s}`);
  add('.env _TOKEN', 'secret_assignment', randomFrom(BASE62, 20), (s) => `  DISCORD_BOT_TOKEN = ${s}`);
  add('inline NAME=value in a command', 'secret_assignment', randomFrom(BASE62, 16), (s) => `run it with REDIS_PASSWORD=${s} npm start`);
  add('a --password= flag', 'secret_assignment', randomFrom(BASE62, 16), (s) => `mysqldump --user=app --password=${s} appdb > dump.sql`);
  add('properties password', 'secret_assignment', randomFrom(BASE62, 12), (s) => `spring.datasource.password=${s}`);
  add('YAML password', 'secret_assignment', randomFrom(BASE62, 12), (s) => `db:\n  user: app\n  password: ${s}\n`);
  add('YAML folded onto one line (a snippet)', 'secret_assignment', randomFrom(BASE62, 12) + '7', (s) => `db: user: app password: ${s} host: db`);
  add('JSON client_secret', 'secret_assignment', randomFrom(URLSAFE, 32), (s) => `{"client_id": "abc", "client_secret": "${s}"}`);
  add('JS apiKey', 'secret_assignment', randomFrom(BASE62, 32), (s) => `const config = { "apiKey": "${s}" };`);
  add('private span', 'private', `<private>my home address is ${randomInt(1, 999)} Elm Street</private>`, (s) => `Remember: ${s} and call me.`);
  add('private span over lines', 'private', `<private>\nline one\nline ${randomFrom(BASE62, 8)}\n</private>`, (s) => `before ${s} after`);
  add('unclosed private span', 'private', `<private>the rest is private ${randomFrom(BASE62, 10)}`, (s) => `public part ${s}`);
  add('private span cut at its start (a snippet)', 'private', `…the end of it ${randomFrom(BASE62, 10)}</private>`, (s) => `${s} then public`);
  return cases;
}
