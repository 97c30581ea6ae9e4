/**
 * The per-install gateway token: `<home>/gateway.token`, created with mode 0600 on first use and
 * reused afterwards, so scripts and the desktop UI (which gets it injected into index.html) can
 * authenticate as `Authorization: Bearer <token>`. The file is created atomically (temp file +
 * link) so two gateways starting at once agree on one token, and comparisons are constant-time over SHA-256
 * digests so neither the token's content nor its length leaks through timing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TokenFileError } from './errors.js';

/** The token file's name inside the Recall home. */
export const TOKEN_FILE_NAME = 'gateway.token';
/** A token we accept from the file: printable, no whitespace, long enough to not be guessable. */
const TOKEN_RE = /^[A-Za-z0-9._~+/=-]{32,512}$/;

/** `<home>/gateway.token`: where {@link ensureToken} keeps the install's bearer token. */
export function tokenPath(home: string): string {
  return join(home, TOKEN_FILE_NAME);
}

/** A new random token (32 bytes, base64url). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function readToken(path: string): string {
  const token = readFileSync(path, 'utf8').trim();
  if (!TOKEN_RE.test(token)) {
    throw new TokenFileError(`${path} does not contain a valid token (32-512 printable characters). Delete it to generate a new one.`);
  }
  return token;
}

/**
 * Returns the install's token, creating `<home>/gateway.token` (0600) if it does not exist. An
 * existing valid file is only read, never rewritten (so a gateway starts on a full or read-only disk
 * once the token exists); one with looser permissions is tightened to 0600 rather than rejected: it is ours.
 * Safe when several processes start at once (they agree on one token). Throws `TokenFileError`
 * (`invalid_token_file`) when the file cannot be created or does not hold a valid token.
 */
export function ensureToken(home: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = tokenPath(home);
  if (existsSync(path)) return existingToken(path);
  // Write a private temp file completely, then link() it into place: link fails with EEXIST if
  // another process won the race, so a reader never sees a half-written token file.
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const token = generateToken();
  try {
    writeFileSync(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
    // The umask may have narrowed the mode further, never widened it; chmod makes it exact.
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, path);
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw new TokenFileError(`Cannot create ${path}: ${(error as Error).message}`, error);
  } finally {
    rmSync(tmp, { force: true });
  }
  return existingToken(path);
}

/** Reads an existing token file, tightening a loosened mode (the only write it may do). */
function existingToken(path: string): string {
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return readToken(path);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison; `undefined`/empty candidates never match. */
export function tokenMatches(expected: string, candidate: string | null | undefined): boolean {
  if (typeof candidate !== 'string' || candidate.length === 0) return false;
  return timingSafeEqual(digest(expected), digest(candidate));
}

/** Extracts the token from an `Authorization: Bearer <token>` header value (scheme is case-insensitive). */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}
