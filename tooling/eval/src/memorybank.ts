/**
 * The MemoryBank loader of the retrieval eval: the Chinese chat logs
 * (`../shared/data/memorybank/memory_bank_cn.json`, MIT, read in place) become recall-jsonl through
 * the repository's own converter, tooling/scripts/memorybank-to-jsonl.mjs (passed in as `convert`, so the
 * eval and `recall import` of the demo data can never disagree on ids: one project per user, one
 * session per user and date, a user and an assistant message per pair with external ids
 * `DATE#i:q` / `DATE#i:r`). Questions are the hand-labelled dev set
 * packages/store/test/fixtures/cjk-dev-queries.json; a target `DATE#i` is one evidence unit found
 * when either of its two messages is. `foreign` questions are asked from `user`'s project while the
 * answer exists only in `answer.user`'s: they have no evidence of their own and are reported, not
 * scored (the expectation is zero results from the other project).
 */
import { createHash } from 'node:crypto';
import type { EvalDataset, EvalQuestion, EvidenceMessage, JsonlRecord } from './types.js';

export interface MemoryBankUser {
  name?: string;
  history: Record<string, { query: string; response: string }[]>;
}
export type MemoryBank = Record<string, MemoryBankUser>;

export interface DevQuery {
  id: string;
  kind?: string;
  user: string;
  query: string;
  targets: string[];
  answer?: { user: string; targets: string[] };
}

export type MemoryBankConverter = (data: MemoryBank, options: { lang: string }) => JsonlRecord[];

/** The converter's id digest of a user key (tooling/scripts/memorybank-to-jsonl.mjs `nameKey`). */
function nameKey(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 10);
}

export function loadMemoryBank(bank: MemoryBank, queries: readonly DevQuery[], convert: MemoryBankConverter): EvalDataset {
  const records = convert(bank, { lang: 'cn' });
  const sessions = new Map<string, string>(); // session id → project id
  const messages = new Set<string>(); // `${session}|${external}`
  for (const r of records) {
    if (r.kind === 'session') sessions.set(String(r.id), String(r.project_id));
    if (r.kind === 'message') messages.add(`${String(r.session_id)}|${String(r.external_id)}`);
  }
  const projectOf = (user: string): string => {
    const anySession = [...sessions.keys()].find((s) => s.startsWith(`mbcn-${nameKey(user)}-`));
    if (!anySession) throw new Error(`MemoryBank user ${JSON.stringify(user)} of the dev questions is not in the data`);
    return sessions.get(anySession)!;
  };
  const evidenceOf = (user: string, targets: readonly string[]): EvidenceMessage[] => {
    const out: EvidenceMessage[] = [];
    for (const t of targets) {
      const m = /^(\d{4}-\d{2}-\d{2})#(\d+)$/.exec(t);
      if (!m) throw new Error(`MemoryBank target ${JSON.stringify(t)} is not DATE#turn`);
      const sessionId = `mbcn-${nameKey(user)}-${m[1]}`;
      let found = 0;
      for (const side of ['q', 'r']) {
        const externalId = `${t}:${side}`;
        if (messages.has(`${sessionId}|${externalId}`)) {
          out.push({ sessionId, externalId, unit: `${user}|${t}` });
          found++;
        }
      }
      if (found === 0) throw new Error(`MemoryBank target ${user} ${t} names no message`);
    }
    return out;
  };
  const questions: EvalQuestion[] = queries.map((q) => {
    const kind = q.kind ?? 'exact';
    const base = { id: `mb-${q.id}`, projectId: projectOf(q.user), query: q.query, category: kind, split: 'dev' as const };
    if (q.answer) return { ...base, evidence: [], foreignEvidence: evidenceOf(q.answer.user, q.answer.targets), foreignProjectId: projectOf(q.answer.user) };
    return { ...base, evidence: evidenceOf(q.user, q.targets), foreignEvidence: [] };
  });
  const users = new Set(Object.keys(bank)).size;
  return {
    name: 'memorybank-cn',
    records,
    questions,
    notes: [`${users} users, ${records.filter((r) => r.kind === 'message').length} messages; ${questions.length} hand-labelled questions (${questions.filter((q) => q.foreignEvidence.length > 0).length} foreign-project, not scored)`],
  };
}
