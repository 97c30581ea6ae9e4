/**
 * Tool calls and outputs of realistic Claude Code, Codex and Hermes histories
 * (test/fixtures/tool-output, one small transcript per source): what the importers store is what
 * the desktop's tool-output view reads — the call in the assistant message's `toolCalls` (its
 * `<name> <input>` line also in the text, so a keyword search for the command finds it), the
 * output as plain text in a `tool` message answering that call, and the tool's own failure marked
 * with TOOL_ERROR_MARKER (Claude Code `is_error`, a Codex non-zero exit code; Hermes keeps its JSON
 * result with `exit_code` / `error`). A re-import stores nothing twice; keyword search finds the
 * output text.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDatabases } from '@recall/config/temp-databases';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createProject, getMessages, keywordSearch } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { importHermes, importTranscripts, TOOL_ERROR_MARKER, transcriptFiles } from '../src/index.js';
import { hermesDb } from '@recall/config/source-fixtures';

const FIXTURES = fileURLToPath(new URL('./fixtures/tool-output/', import.meta.url));
const { tempDir, tempDb } = tempDatabases((path) => openDatabase(path), 'recall-import-tools-');

const CC = '7c1d2e3f-0000-4000-8000-0000000e0001';
const CODEX = '019a0b1c-0000-7000-8000-0000000e0002';
const HERMES = '20251002_110000_tt01';

type Source = 'claude-code' | 'codex' | 'hermes';

async function importOnce(db: RecallDatabase, source: Source, projectId: string): Promise<{ messages: number }> {
  const mapping = { kind: 'project' as const, projectId };
  if (source === 'hermes') {
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'), readFileSync(join(FIXTURES, 'hermes', 'state.sql'), 'utf8'));
    return importHermes(db, path, { mapping });
  }
  const dir = join(tempDir(), source);
  cpSync(join(FIXTURES, source), dir, { recursive: true });
  return importTranscripts(db, source, transcriptFiles(source, dir), { mapping });
}

const CASES: Array<{ source: Source; session: string; calls: string[]; ok: string; failed: string | null; search: string }> = [
  { source: 'claude-code', session: CC, calls: ['Bash', 'Bash'], ok: 'src/lib/file40.ts:120', failed: 'expected \'zq-2\' to be \'zq-1\'', search: 'helper17' },
  { source: 'codex', session: CODEX, calls: ['shell', 'shell'], ok: 'crates/core/src/mod30.rs', failed: 'unresolved import `walrus::tusk`', search: 'mod27' },
  { source: 'hermes', session: HERMES, calls: ['terminal', 'terminal'], ok: 'image: otter:1.4', failed: null, search: 'otter' },
];

describe('tool calls and outputs as imported', () => {
  test.each(CASES)('$source: calls in toolCalls, outputs as text answering them, failures marked', async ({ source, session, calls, ok, failed }) => {
    const db = tempDb();
    const p = createProject(db, { name: source });
    await importOnce(db, source, p.id);
    const messages = getMessages(db, session, { limit: 100 });
    const withCalls = messages.filter((m) => m.role === 'assistant' && m.toolCalls);
    const callIds = withCalls.flatMap((m) => (JSON.parse(m.toolCalls!) as Array<{ id: string; function: { name: string } }>).map((c) => [c.id, c.function.name] as const));
    expect(callIds.map(([, name]) => name)).toEqual(calls);
    const tools = messages.filter((m) => m.role === 'tool');
    expect(tools.map((t) => t.toolCallId)).toEqual(callIds.map(([id]) => id));
    const okOut = tools.find((t) => t.content.includes(ok))!;
    expect(okOut.content.startsWith(TOOL_ERROR_MARKER)).toBe(false);
    if (failed !== null) {
      const bad = tools.find((t) => t.content.includes(failed))!;
      expect(bad.content.startsWith(TOOL_ERROR_MARKER)).toBe(true);
    } else {
      // Hermes: the tool's JSON result as stored, its failure in exit_code / error.
      expect(tools.map((t) => (JSON.parse(t.content) as { exit_code: number }).exit_code)).toEqual([0, 1]);
    }
  });

  test.each(CASES)('$source: a re-import stores nothing twice; keyword search finds the output text', async ({ source, session, search }) => {
    const db = tempDb();
    const p = createProject(db, { name: source });
    const first = await importOnce(db, source, p.id);
    expect(first.messages).toBeGreaterThan(0);
    const before = getMessages(db, session, { limit: 100 }).map((m) => [m.id, m.content]);
    const again = await importOnce(db, source, p.id);
    expect(again.messages).toBe(0);
    expect(getMessages(db, session, { limit: 100 }).map((m) => [m.id, m.content])).toEqual(before);
    const hits = keywordSearch(db, { kind: 'project', projectId: p.id }, search, { titleLimit: 0, automatedSources: [] }).hits;
    expect(hits.some((h) => h.role === 'tool' && h.sessionId === session)).toBe(true);
  });
});
