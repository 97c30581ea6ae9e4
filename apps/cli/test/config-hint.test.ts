/**
 * Where the semantic hints tell people to put config.json: a team database creates no profile
 * folder, so a hint naming a file in a folder that does not exist says to create the folder
 * (following the hint as printed must work).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { whereConfigGoes } from '../src/commands/index-status-text.js';
import { cleanupTemp, tempDir } from './cli-helpers.js';

afterAll(cleanupTemp);

describe('whereConfigGoes', () => {
  const root = tempDir();
  mkdirSync(join(root, 'home'));
  test.each([
    ['an existing folder: the path alone', join(root, 'home', 'config.json'), join(root, 'home', 'config.json')],
    ['a missing folder: the path and what to create', join(root, 'none', 'config.json'), `${join(root, 'none', 'config.json')} (create the folder ${join(root, 'none')} first: it does not exist yet)`],
  ])('%s', (_name, path, expected) => {
    expect(whereConfigGoes(path)).toBe(expected);
  });
});

