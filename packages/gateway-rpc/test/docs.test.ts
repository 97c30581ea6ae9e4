/**
 * docs/rpc.md is the contract the desktop UI and scripts are written against: every registered
 * method has a row, and every stable error code is listed with its numeric JSON-RPC code. The
 * README's Node version agrees with package.json `engines`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DOMAIN_ERROR_CODES } from '@recall/rpc-contract';
import { createMethodRegistry } from '../src/index.js';

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

describe('README.md', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const engines = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

  test('every Node version it names is the minimum package.json engines requires', () => {
    const minimum = /^>=\s*(\d+\.\d+)/.exec(engines)?.[1];
    expect(minimum, `engines.node "${engines}" is a ">=" range`).toBeDefined();
    const named = [...readme.matchAll(/Node(?:\.js)?\s*(?:≥|>=)?\s*v?(\d+(?:\.\d+)*)/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(0);
    // "Node 20" alone promises less than engines requires (a fresh 20.0–20.18 install is refused).
    for (const text of named) expect(text).toMatch(new RegExp(`^Node(?:\\.js)?\\s*(?:≥|>=)\\s*v?${minimum!.replace('.', '\\.')}$`));
  });
});
