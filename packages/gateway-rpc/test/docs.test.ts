/**
 * docs/rpc.md is the contract the desktop UI and scripts are written against: every registered
 * method has a row, and every stable error code is listed with its numeric JSON-RPC code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createMethodRegistry, DOMAIN_ERROR_CODES } from '../src/index.js';

const doc = readFileSync(new URL('../../../docs/rpc.md', import.meta.url), 'utf8');

describe('docs/rpc.md', () => {
  test.each(createMethodRegistry().names())('documents method %s', (name) => {
    expect(doc).toContain(`| \`${name}\``);
  });

  test.each(Object.entries(DOMAIN_ERROR_CODES))('documents error code %s = %i', (code, numeric) => {
    expect(doc).toMatch(new RegExp(`\\|\\s*${numeric}\\s*\\|\\s*\`${code}\``));
  });

  test('documents the standard codes and the fallback', () => {
    for (const n of [-32700, -32600, -32601, -32602, -32603, -32000]) expect(doc).toContain(`| ${n} |`);
  });
});
