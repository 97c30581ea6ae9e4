/**
 * A lost or refused connection, whatever the driver calls it, becomes one typed retryable error
 * (DatabaseUnreachableError, `storage_unavailable`) at the ports' surface: SQLSTATE class 08, the
 * shutdown codes 57P01–57P03, socket errors, and pg's own code-less "Connection terminated" /
 * "not queryable" / connect-timeout errors. Every other error passes unchanged. A transaction whose
 * connection died was never committed by us (write() rolls back or the server discards it), so a
 * request that fails this way has written nothing unless its COMMIT itself was in flight.
 */
import { DatabaseUnreachableError } from '../errors.js';

const CODES = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const MESSAGES = /connection terminated|not queryable|timeout exceeded when trying to connect|terminating connection|the database system is (starting up|shutting down|in recovery mode)|server closed the connection/i;

/** Whether `error` means the database is not reachable right now. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof DatabaseUnreachableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || CODES.has(code))) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionLoss)) return true;
  return MESSAGES.test(error.message);
}

/** `error`, or a DatabaseUnreachableError when it is a lost connection. */
export function asUnreachable(error: unknown): unknown {
  return error instanceof DatabaseUnreachableError || !isConnectionLoss(error) ? error : new DatabaseUnreachableError(error);
}

/** The same port object with every method's rejection passed through asUnreachable (and synchronous throws too). */
export function guardPort<T extends object>(port: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(port)) {
    out[key] =
      typeof value === 'function'
        ? (...args: unknown[]) => {
            try {
              const result = (value as (...a: unknown[]) => unknown).apply(port, args);
              return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(asUnreachable(error))) : result;
            } catch (error) {
              throw asUnreachable(error);
            }
          }
        : value;
  }
  return out as T;
}
