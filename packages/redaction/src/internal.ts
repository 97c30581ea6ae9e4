/**
 * Test support of @recall/redaction, with no compatibility promise: the generator of realistic FAKE
 * secrets that the package's tests and the surfaces' loopback tests (semantic, chat, MCP) use.
 * Applications use `@recall/redaction`.
 */
export { crc32, fakeSecretCorpus, githubToken, jwt, npmToken, opensshPrivateKey, pemPrivateKey, randomFrom, type FakeSecretCase } from './fake-secrets.js';
