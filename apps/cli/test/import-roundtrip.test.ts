/**
 * The import round-trip on real data: MemoryBank-SiliconFriend's Chinese logs
 * (`../shared/data/memorybank/memory_bank_cn.json` from the repository root; CI has it) converted
 * by tooling/scripts/memorybank-to-jsonl.mjs, imported with `recall import` and searched with
 * `recall search --json`, all as child processes. Each of three queries is a Chinese phrase that one user said
 * exactly once, on another day than the current session's, and that other users also said — so the
 * test proves both that the right anchor (session_id + message_id) comes back and that other
 * users' projects never appear. Re-importing the same file adds zero rows.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { getMessages } from '@recall/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, json, REPO_ROOT, runCli, runNode, tempDir } from './cli-helpers.js';

const DATA = join(REPO_ROOT, '..', 'shared', 'data', 'memorybank', 'memory_bank_cn.json');
const CONVERTER = join(REPO_ROOT, 'tooling', 'scripts', 'memorybank-to-jsonl.mjs');

interface Line {
  kind: 'project' | 'session' | 'message';
  id?: string;
  project_id?: string;
  session_id?: string;
  external_id?: string;
  role?: string;
  content?: string;
}

interface Probe {
  projectId: string;
  currentSession: string;
  phrase: string;
  expectedSession: string;
  expectedExternalId: string;
  otherUsersWithPhrase: number;
}

/**
 * Picks, deterministically, probe phrases for the first user (project) in id order: 4-6 Han
 * characters made of whole words (Intl.Segmenter, the way a person would type them) from a user
 * message of another day than the current session, said in exactly one message of this user and at
 * least once by another user. Ranked most distinctive first: fewest other messages of this user that
 * share any of the phrase's words (so the expected anchor is unambiguous), then most occurrences in
 * other users' logs (the strongest cross-project check).
 */
function pickProbes(lines: Line[], count: number): Probe[] {
  const projectOf = new Map<string, string>();
  for (const l of lines) if (l.kind === 'session') projectOf.set(l.id!, l.project_id!);
  const messages = lines.filter((l) => l.kind === 'message').map((l) => ({ ...l, project: projectOf.get(l.session_id!)! }));
  const projectId = [...new Set(messages.map((m) => m.project))].sort()[0]!;
  const own = messages.filter((m) => m.project === projectId);
  const currentSession = [...new Set(own.map((m) => m.session_id!))].sort()[0]!;
  const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
  const seen = new Set<string>();
  const candidates: (Probe & { noise: number })[] = [];
  for (const m of own) {
    if (m.session_id === currentSession || m.role !== 'user') continue;
    const words = [...segmenter.segment(m.content!)].filter((s) => s.isWordLike).map((s) => s.segment);
    for (let i = 0; i < words.length; i++) {
      for (let j = i + 1; j <= Math.min(words.length, i + 3); j++) {
        const parts = words.slice(i, j);
        const phrase = parts.join('');
        if (!/^\p{Script=Han}{4,6}$/u.test(phrase) || seen.has(phrase)) continue;
        seen.add(phrase);
        if (own.filter((o) => o.content!.includes(phrase)).length !== 1) continue;
        const others = messages.filter((o) => o.project !== projectId && o.content!.includes(phrase)).length;
        if (others < 1) continue;
        const noise = own.filter((o) => o !== m && parts.some((w) => o.content!.includes(w))).length;
        candidates.push({ projectId, currentSession, phrase, expectedSession: m.session_id!, expectedExternalId: m.external_id!, otherUsersWithPhrase: others, noise });
      }
    }
  }
  candidates.sort((a, b) => a.noise - b.noise || b.otherUsersWithPhrase - a.otherUsersWithPhrase || (a.phrase < b.phrase ? -1 : 1));
  if (candidates.length < count) throw new Error(`Only ${candidates.length} probe phrases found in the MemoryBank data`);
  return candidates.slice(0, count);
}

// Runs where ../shared/data exists (as on CI); on a fresh clone without it the suite is skipped and
// its title says why, instead of failing the README's test command.
const HAS_DATA = existsSync(DATA);
describe.skipIf(!HAS_DATA)(`import round-trip on MemoryBank (cn)${HAS_DATA ? '' : ` — SKIPPED: ${DATA} absent (the shared data folder beside the repository)`}`, () => {
  let home: string;
  let file: string;
  let lines: Line[];

  beforeAll(async () => {
    assertCliBuilt();
    home = tempDir('recall-roundtrip-');
    file = join(home, 'memorybank-cn.jsonl');
    const converted = await runNode([CONVERTER, '--lang', 'cn', '--out', file]);
    expect(converted.code, converted.stderr).toBe(0);
    lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
  });
  afterAll(() => cleanupTemp());

  it('imports every converted line, finds the right anchor for a phrase of another day, and never another user', async () => {
    const counts = { project: 0, session: 0, message: 0 };
    for (const l of lines) counts[l.kind]++;
    expect(counts.project).toBe(15);

    const imported = await runCli(['import', file, '--home', home, '--json'], { timeoutMs: 120_000 });
    expect(imported.code, imported.stderr).toBe(0);
    expect(json(imported)).toMatchObject({ lines: lines.length, projects: counts.project, sessions: counts.session, messages: counts.message, errorCount: 0 });

    // Three probes, each a phrase of another day that other users also said.
    for (const probe of pickProbes(lines, 3)) {
      const search = await runCli(['search', '--home', home, '--session', probe.currentSession, '--query', probe.phrase, '--json']);
      expect(search.code, search.stderr).toBe(0);
      const result = json<{ scope: { project_id: string }; results: { session_id: string; message_id: number }[] }>(search);
      expect(result.scope.project_id).toBe(probe.projectId);

      const db = openDatabase(profileDatabasePath(home, 'default'));
      let expectedMessageId: number;
      let ownSessions: Set<string>;
      try {
        expectedMessageId = getMessages(db, probe.expectedSession).find((m) => m.externalId === probe.expectedExternalId)!.id;
        ownSessions = new Set(db.raw.prepare('select id from sessions where project_id = ?').pluck().all(probe.projectId) as string[]);
      } finally {
        db.close();
      }
      expect(result.results[0], `top hit for ${probe.phrase}`).toMatchObject({ session_id: probe.expectedSession, message_id: expectedMessageId });
      // The phrase is in other users' logs too, but their projects never appear.
      for (const hit of result.results) expect(ownSessions.has(hit.session_id), `${hit.session_id} (for ${probe.phrase}) belongs to ${probe.projectId}`).toBe(true);
    }
  });

  it('re-importing the same file adds zero rows', async () => {
    const again = await runCli(['import', file, '--home', home, '--json'], { timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ projects: 0, sessions: 0, messages: 0, sessionsUpdated: 0, skipped: lines.length, errorCount: 0 });
  });
});
