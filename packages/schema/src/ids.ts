/**
 * Identifier minting. Project ids are `p_` + random base32-ish text so they can never be confused
 * with a folder path; session ids are `s_` + random. Both are opaque to every caller.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 32];
  return out;
}

/** A new random project id: `p_` + 12 random lowercase letters and digits (60 bits). */
export function newProjectId(): string {
  return `p_${randomToken(12)}`;
}

/** A new random session id: `s_` + 16 random lowercase letters and digits (80 bits). */
export function newSessionId(): string {
  return `s_${randomToken(16)}`;
}
