/**
 * Realistic FAKE secrets, generated fresh for every test run from random bytes: the right prefixes,
 * alphabets and lengths, and the CRC32 checksum where the format has one (GitHub and npm tokens).
 * None of them is, or was ever, a real credential.
 */
import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UPPER_BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const URLSAFE = BASE62 + '_-';
const BASE64 = BASE62 + '+/';

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

export function npmToken(): string {
  const body = randomFrom(BASE62, 30);
  return `npm_${body}${base62(crc32(body), 6)}`;
}

const b64url = (s: string | Buffer): string => Buffer.from(s).toString('base64url');

export function jwt(): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub: randomFrom(BASE62, 12), iat: 1_700_000_000 + randomInt(1_000_000), scope: 'repo read' }));
  return `${header}.${payload}.${b64url(randomBytes(32))}`;
}

/** A throwaway key pair made now; only its PEM text is used. */
export function pemPrivateKey(type: 'ed25519' | 'ec' | 'rsa-pkcs1'): string {
  if (type === 'ed25519') return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  if (type === 'ec') return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'sec1' }).toString();
  return generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
}

export function opensshPrivateKey(): string {
  const body = randomBytes(300).toString('base64').replace(/(.{70})/g, '$1\n');
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
  add('Authorization Basic', 'authorization', Buffer.from(`admin:${randomFrom(BASE62, 16)}`).toString('base64'), (s) => `Authorization: Basic ${s}`);
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
  add('properties password', 'secret_assignment', randomFrom(BASE62, 12), (s) => `spring.datasource.password=${s}`);
  add('YAML password', 'secret_assignment', randomFrom(BASE62, 12), (s) => `db:\n  user: app\n  password: ${s}\n`);
  add('JSON client_secret', 'secret_assignment', randomFrom(URLSAFE, 32), (s) => `{"client_id": "abc", "client_secret": "${s}"}`);
  add('JS apiKey', 'secret_assignment', randomFrom(BASE62, 32), (s) => `const config = { "apiKey": "${s}" };`);
  add('private span', 'private', `<private>my home address is ${randomInt(1, 999)} Elm Street</private>`, (s) => `Remember: ${s} and call me.`);
  add('private span over lines', 'private', `<private>\nline one\nline ${randomFrom(BASE62, 8)}\n</private>`, (s) => `before ${s} after`);
  add('unclosed private span', 'private', `<private>the rest is private ${randomFrom(BASE62, 10)}`, (s) => `public part ${s}`);
  add('private span cut at its start (a snippet)', 'private', `…the end of it ${randomFrom(BASE62, 10)}</private>`, (s) => `${s} then public`);
  return cases;
}
