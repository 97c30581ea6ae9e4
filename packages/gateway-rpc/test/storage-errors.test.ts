/**
 * Storage-port error codes on the wire: storage_unavailable (and a lost database connection, by its
 * SQLSTATE or socket code) is the retryable -32045 without the driver's message; storage_unsupported
 * and invalid_storage_config keep their message and string code.
 */
import { describe, expect, test } from 'vitest';
import { toJsonRpcError } from '../src/errors.js';

class Coded extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
const DRIVER = 'connect ECONNREFUSED 10.0.0.7:5432 for user recall_admin';

describe('storage errors on the wire', () => {
  test.each([
    ['storage_unavailable', new Coded('storage_unavailable', 'Storage of kind "postgres" is not available in this installation.'), -32045, true, 'not available'],
    ['socket refused', new Coded('ECONNREFUSED', DRIVER), -32045, true, 'cannot be reached'],
    ['SQLSTATE 08006', new Coded('08006', DRIVER), -32045, true, 'cannot be reached'],
    ['SQLSTATE 57P01 (admin shutdown)', new Coded('57P01', DRIVER), -32045, true, 'cannot be reached'],
    ['storage_unsupported', new Coded('storage_unsupported', 'The postgres storage does not support x yet.'), -32046, undefined, 'does not support'],
    ['invalid_storage_config', new Coded('invalid_storage_config', 'The storage configuration is not valid: no url.'), -32047, undefined, 'not valid'],
  ])('%s', (_name, error, code, retryable, text) => {
    const wire = toJsonRpcError(error);
    expect(wire.code).toBe(code);
    expect((wire.data as { retryable?: boolean }).retryable).toBe(retryable);
    expect(wire.message).toContain(text);
    expect(JSON.stringify(wire)).not.toMatch(/10\.0\.0\.7|recall_admin/);
  });

  test('an unrelated code that merely starts with 08 stays an internal error', () => {
    expect(toJsonRpcError(new Coded('08x', 'nope')).code).toBe(-32603);
  });
});
