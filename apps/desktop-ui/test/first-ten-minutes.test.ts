/**
 * The pure pieces behind issue 20's desktop fixes, table-driven: imported tool calls and outputs
 * (lib/toolOutput), the tool's model-directed notes in words for people (lib/toolText), snippet ends
 * at word boundaries (lib/snippet trimToWords), the semantic badge and the reasons Semantic is off
 * (lib/semantic), folder paths (lib/folders) and the sidebar's message counts (lib/format).
 */
import { describe, expect, it } from 'vitest';
import { parseToolCalls } from '../src/lib/chat';
import { folderProblem, isAbsoluteFolder } from '../src/lib/folders';
import { messageCountText } from '../src/lib/format';
import { languageWarning, semanticBadge, semanticUnavailableFor } from '../src/lib/semantic';
import { trimToWords } from '../src/lib/snippet';
import { commandOf, foldedPreview, isSearchResult, textWithoutCallLines, toolOutputView } from '../src/lib/toolOutput';
import { errorForPeople, notesForPeople } from '../src/lib/toolText';
import type { IndexStatus } from '@recall/rpc-contract';

describe('tool calls as imported', () => {
  const calls = parseToolCalls(
    JSON.stringify([
      { id: 'a', type: 'function', function: { name: 'Bash', arguments: '{"command":"grep -n zstd CMakeLists.txt"}' } },
      { id: 'b', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/x.ts"}' } },
    ]),
  );
  it.each([
    ['the call lines go, the text stays', 'Let me look.\nBash {"command":"grep -n zstd CMakeLists.txt"}\nRead {"file_path":"/x.ts"}', 'Let me look.'],
    ['only call lines: nothing left', 'Bash {"command":"grep -n zstd CMakeLists.txt"}', ''],
    ['a line that only resembles a call stays', 'Bash {"command":"other"}', 'Bash {"command":"other"}'],
  ])('%s', (_name, text, want) => expect(textWithoutCallLines(text, calls)).toBe(want));

  it.each([
    [{ command: 'ls -la' }, 'ls -la'],
    [{ command: ['bash', '-lc', 'cargo build'] }, 'cargo build'],
    [{ command: ['rg', '-n', 'x'] }, 'rg -n x'],
    [{ file_path: '/x' }, null],
    ['text', null],
  ])('commandOf(%j) = %j', (args, want) => expect(commandOf(args)).toBe(want));
});

describe('tool outputs', () => {
  it.each([
    ['plain text', 'a\nb\n', { text: 'a\nb', failed: false, exitCode: null }],
    ['the error marker', '[error] boom', { text: 'boom', failed: true, exitCode: null }],
    ['JSON with exit_code 0', '{"output":"ok\\n","exit_code":0,"error":null}', { text: 'ok', failed: false, exitCode: 0 }],
    ['JSON with exit_code 1 and an error', '{"output":"","exit_code":1,"error":"no such file"}', { text: 'no such file', failed: true, exitCode: 1 }],
    ['JSON without an output field', '{"a":1}', { text: '{\n  "a": 1\n}', failed: false, exitCode: null }],
    ['a brace that is not JSON', '{ not json', { text: '{ not json', failed: false, exitCode: null }],
  ])('%s', (_name, content, want) => expect(toolOutputView(content)).toEqual(want));

  it('folds long output, not short', () => {
    expect(foldedPreview('a\nb')).toBeNull();
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    expect(foldedPreview(long)).toEqual({ preview: long.split('\n').slice(0, 12).join('\n'), lines: 40 });
  });

  it.each([
    ['session_search', '{"results":[],"used_mode":"keyword"}', true],
    ['session_search', '{"error":{"code":"x","message":"y"}}', true],
    ['session_search', 'not json', false],
    ['terminal', '{"results":[]}', false],
    ['Bash', 'output', false],
  ])('isSearchResult(%s, %s) = %s', (name, content, want) => expect(isSearchResult(name, content)).toBe(want));
});

describe('tool text for people', () => {
  it.each([
    ['Your current conversation also matches (3+ messages), but it is not listed: its live messages are already in your context.', /open conversation also matches/],
    ['More than 8 conversations match; raise limit (up to 50) or refine the query to see others.', /use more specific words/],
    ['Semantic search is unavailable: no embedding provider (semantic_disabled).', /^Semantic search is not available here: no embedding provider\.$/],
  ])('%s', (note, want) => {
    const out = notesForPeople([note]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(want);
    expect(out[0]).not.toMatch(/search_mode|your context|raise limit|_\w+\)/);
  });
  it('drops notes only a model can use, and those the panel already says', () => {
    expect(
      notesForPeople([
        'Long messages were shortened; next_offset on a result says where to continue (around_message_id + offset).',
        'No matches in this project.',
        'Hybrid search ran as keyword-only: no embedding provider is configured.',
      ]),
    ).toEqual([]);
  });
  it('an error in one plain sentence, no code', () => {
    const text = errorForPeople({ code: 'semantic_unavailable', message: 'Semantic search is unavailable (x). Retry with search_mode "keyword" or "hybrid".' });
    expect(text).not.toMatch(/search_mode|semantic_unavailable|Retry/);
  });
});

describe('snippet ends at word boundaries', () => {
  it.each([
    ['…ckout of the main branch worked', '…of the main branch worked'],
    ['the checkout of the main bra…', 'the checkout of the main…'],
    ['whole words already', 'whole words already'],
    ['…番茄炒蛋没有结果…', '…番茄炒蛋没有结果…'],
    ['…«match» here', '…«match» here'],
    ['…/a/very/long/path/that/has/no/spaces/at/all/in/it.ts here', '…/a/very/long/path/that/has/no/spaces/at/all/in/it.ts here'],
  ])('%s → %s', (input, want) => expect(trimToWords(input)).toBe(want));
});

const sem = (over: Partial<IndexStatus['semantic']>): IndexStatus => ({
  keyword: { messages: 0, sessions: 0, conversations: 0 },
  semantic: { status: 'ready', configured: true, enabled: true, provider: null, worker: null, projects: [], ...over },
});
const row = (over: Record<string, unknown>) =>
  ({ projectId: 'p', name: 'P', slug: 'p', archived: false, status: 'ready', reason: 'complete', consent: { enabled: true, endpoint: 'x', enabledAt: 1 }, eligible: 1, ready: 1, pending: 0, failed: 0, queuedSessions: 0, lastError: null, ...over }) as IndexStatus['semantic']['projects'][number];

describe('semantic status in words', () => {
  it.each([
    [{ status: 'disabled', reason: 'no_project_enabled', configured: true }, 'no project on'],
    [{ status: 'disabled', reason: 'not_configured', configured: false }, 'disabled'],
    [{ status: 'partial', configured: true }, 'filling'],
    [{ status: 'ready', configured: true }, 'ready'],
  ] as const)('%j → %s', (s, want) => expect(semanticBadge(s)).toBe(want));

  it.each([
    ['not configured', sem({ configured: false, status: 'disabled' }), 'p', /no embedding model/],
    ['no project', sem({}), null, /no project/],
    ['not switched on', sem({ projects: [row({ consent: { enabled: false, endpoint: null, enabledAt: null } })] }), 'p', /not switched on/],
    ['model down', sem({ projects: [row({ status: 'unavailable' })] }), 'p', /cannot be reached/],
    ['ready', sem({ projects: [row({})] }), 'p', null],
  ])('%s', (_name, status, projectId, want) => {
    const why = semanticUnavailableFor(status, projectId);
    if (want === null) expect(why).toBeNull();
    else expect(why).toMatch(want);
  });

  it.each([
    [{ languages: 'english-only' }, { cjkShare: 0.8 }, true],
    [{ languages: 'english-only' }, { cjkShare: 0.05 }, false],
    [{ languages: 'english-only' }, { cjkShare: null }, false],
    [{ languages: 'model-dependent' }, { cjkShare: 0.9 }, false],
  ])('language warning for %j %j: %s', (provider, r, want) => expect(languageWarning(provider, r) !== null).toBe(want));
});

describe('folders and counts', () => {
  it.each([
    ['/home/me/src', true],
    ['C:\\src', true],
    ['relative/path', false],
    ['./x', false],
  ])('isAbsoluteFolder(%s) = %s', (p, want) => expect(isAbsoluteFolder(p)).toBe(want));
  it('a relative folder is explained, an empty one is fine', () => {
    expect(folderProblem('src/x')).toMatch(/not a full path/);
    expect(folderProblem('')).toBeNull();
  });
  it.each([
    ['one part', [{ id: 'a', messageCount: 7, lineage: 'root' }], 'a', { short: '7 msg', long: '7 messages' }],
    [
      'compressed',
      [
        { id: 'a', messageCount: 4, lineage: 'root' },
        { id: 'b', messageCount: 3, lineage: 'compression' },
      ],
      'b',
      { short: '3 msg + 4 earlier', long: '7 messages, 4 in the compressed earlier part' },
    ],
    [
      'a subagent is not counted',
      [
        { id: 'a', messageCount: 2, lineage: 'root' },
        { id: 'c', messageCount: 9, lineage: 'delegation' },
      ],
      'a',
      { short: '2 msg', long: '2 messages' },
    ],
    ['empty', [{ id: 'a', messageCount: 0, lineage: 'root' }], 'a', null],
  ])('%s', (_name, members, head, want) => expect(messageCountText(members, head)).toEqual(want));
});
