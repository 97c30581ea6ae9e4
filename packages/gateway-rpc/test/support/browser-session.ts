/**
 * A browser's way in, done over raw HTTP against a real gateway: redeem a one-time launch URL and
 * keep the session cookie it sets (`name=value`, as a browser would send it back).
 */
import { rawRequest } from '../helpers.js';

/** The `Set-Cookie` header of a response, as one string (the gateway sets at most one cookie). */
export function setCookieOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['set-cookie'];
  return Array.isArray(value) ? value[0] : value;
}

/** Redeems `launchUrl` (from `gw.launchUrl()` or `GET /launch`) and answers the `Cookie:` value to send. */
export async function sessionCookie(port: number, launchUrl: string): Promise<string> {
  const url = new URL(launchUrl);
  const res = await rawRequest(port, { path: `${url.pathname}${url.search}` });
  const cookie = setCookieOf(res.headers);
  if (res.status !== 303 || cookie === undefined) throw new Error(`launch URL refused: HTTP ${res.status} ${res.text}`);
  return cookie.split(';')[0]!;
}
