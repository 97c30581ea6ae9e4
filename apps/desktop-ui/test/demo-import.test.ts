import { describe, expect, it } from 'vitest';
import { describeImport } from '../src/state/demo';

describe('describeImport', () => {
  const base = { lines: 51, projects: 3, sessions: 10, messages: 38, sessionsUpdated: 0, skipped: 0, errors: [], errorCount: 0 };
  it('summarises a first import', () => {
    expect(describeImport(base)).toBe('Imported 3 projects and 38 messages');
  });
  it('says when a re-import changed nothing', () => {
    expect(describeImport({ ...base, projects: 0, sessions: 0, messages: 0, skipped: 51 })).toBe(
      'The demo history is already imported; nothing changed',
    );
  });
  it('reports rejected lines with the first error', () => {
    const r = { ...base, errors: [{ line: 4, code: 'invalid_line', message: 'bad' }], errorCount: 2 };
    expect(describeImport(r)).toBe('Imported 3 projects and 38 messages; 2 lines were rejected (line 4: bad [invalid_line])');
  });
});
