/**
 * The import format as users meet it: line errors name the field and the fix (not zod's "expected
 * string, received undefined" or "Unknown kind missing"), and docs/import-format.md documents every
 * field the importer's schemas accept — and no field they do not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { messageLineSchema, parseLine, projectLineSchema, sessionLineSchema } from '../src/index.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('line errors name the field and the fix', () => {
  test.each([
    ['no kind', '{"id":"s1"}', 'unknown_kind', /missing required field "kind": add "kind": "project", "session", "message"/],
    ['an unknown kind', '{"kind":"folder","path":"/tmp"}', 'unknown_kind', /field "kind" is "folder"; it must be one of "project", "session", "message"/],
    ['a non-string kind', '{"kind":3}', 'unknown_kind', /field "kind" is a number/],
    ['a message without external_id', '{"kind":"message","session_id":"s1","role":"user","content":"hi"}', 'invalid_line', /missing required field "external_id" \(stable id of the message in its source/],
    ['a message without content', '{"kind":"message","session_id":"s1","external_id":"m1","role":"user"}', 'invalid_line', /missing required field "content" \(original text\)/],
    ['a project without a name', '{"kind":"project","id":"p_x"}', 'invalid_line', /missing required field "name" \(display name\)/],
    ['a misspelt field', '{"kind":"session","id":"s1","projectId":"p_x"}', 'invalid_line', /unknown field "projectId"; allowed fields: kind, id, project_id,/],
    ['a bad role', '{"kind":"message","session_id":"s1","external_id":"m1","role":"robot","content":"x"}', 'invalid_line', /field "role": .*\(speaker role\)/],
    // A field that is present with the wrong type is not "missing" (zod 4 issues carry no input).
    ['content of the wrong type', '{"kind":"message","session_id":"s1","external_id":"m1","role":"user","content":42}', 'invalid_line', /field "content": .*expected string, received number/],
    ['folders as one string', '{"kind":"project","id":"p_x","name":"X","folders":"/a/b"}', 'invalid_line', /field "folders": .*expected array, received string/],
    ['a null title is fine but a numeric one is not', '{"kind":"session","id":"s1","title":7}', 'invalid_line', /field "title": .*expected string/],
    ['an unreadable timestamp', '{"kind":"message","session_id":"s1","external_id":"m1","role":"user","content":"x","created_at":"yesterday"}', 'invalid_line', /field "created_at": .*ISO-8601 date-time.*"2024-03-01T10:00:00Z".*milliseconds/],
  ])('%s', (_case, text, code, message) => {
    const parsed = parseLine(text, 7);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatchObject({ line: 7, code });
    expect(parsed.error.message).toMatch(message);
    expect(parsed.error.message).not.toMatch(/received undefined|Unknown kind missing|: Invalid input \(/);
    if (!/missing required field/.test(message.source)) expect(parsed.error.message).not.toMatch(/missing required field/);
    expect(parsed.error.message).toContain('docs/import-format.md');
  });
});

describe('docs/import-format.md', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'import-format.md'), 'utf8');
  const sectionFields = (kind: string): string[] => {
    const start = doc.indexOf(`## \`${kind}\``);
    expect(start, `section for ${kind}`).toBeGreaterThanOrEqual(0);
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end < 0 ? undefined : end);
    return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!).sort();
  };
  test.each([
    ['project', projectLineSchema],
    ['session', sessionLineSchema],
    ['message', messageLineSchema],
  ])('the %s table lists exactly the schema fields', (kind, schema) => {
    expect(sectionFields(kind)).toEqual(Object.keys(schema.shape).sort());
  });

  test('docs/rpc.md points to this document for the format', () => {
    const rpc = readFileSync(join(REPO_ROOT, 'docs', 'rpc.md'), 'utf8');
    expect(rpc).toContain('import-format.md');
    expect(rpc).not.toContain('DESIGN §8');
  });
});
