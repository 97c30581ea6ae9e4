/**
 * The LoCoMo loader of the retrieval eval: turns `locomo10.json` (Maharana et al. 2024, CC BY-NC
 * 4.0, read in place from ../shared/data, never copied) into recall-jsonl records plus questions
 * whose evidence is expressed as message external ids. Layout: each conversation is one project,
 * each LoCoMo session one session, each turn one message whose external id is its normalised
 * `dia_id` (`D3:7`). Protocol decisions live here so the docs and the numbers cannot drift apart:
 *
 * - Stored text is `Speaker: text` by default (most published LoCoMo retrieval numbers prefix turns
 *   with the speaker, and the questions name people); `speakerPrefix: false` stores the bare text.
 *   A shared photo's caption is appended as `[shares a photo: caption]`, as the released dataset's
 *   own text-only baselines do.
 * - Roles: speaker_a's turns are `user`, speaker_b's `assistant` (session_search searches both).
 * - Evidence ids are normalised (split on `;`/`,`/whitespace, `D:11:26` → `D11:26`, leading zeros
 *   dropped: `D30:05` → `D30:5`); ids that name no turn of the conversation (`D`, `D10:19` in
 *   conv 3) are dropped and counted. A question left without evidence is kept but not scored.
 * - Split: conversations 0–4 are `dev` (every tuning decision), 5–9 `test`.
 */
import type { EvalDataset, EvalQuestion, JsonlRecord } from './types.js';

export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
export interface LocomoConversation {
  sample_id?: string;
  conversation: Record<string, unknown>;
  qa: { question: unknown; answer?: unknown; evidence?: unknown; category: number }[];
}

export const LOCOMO_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
/** Conversations with an index below this are the dev half. */
export const LOCOMO_DEV_CONVERSATIONS = 5;

export interface LocomoOptions {
  /** Store `Speaker: text` (default true). */
  speakerPrefix?: boolean;
  /** Only these conversation indexes (default all). */
  conversations?: readonly number[];
}

export interface EvidenceNormalisation {
  /** Normalised ids, in order, without duplicates. */
  ids: string[];
  /** Raw pieces that could not be read as `D<session>:<turn>`. */
  malformed: string[];
}

/** Splits and repairs one raw evidence entry; does not check the ids exist (see loadLocomo). */
export function normaliseEvidenceId(raw: unknown): EvidenceNormalisation {
  const ids: string[] = [];
  const malformed: string[] = [];
  if (typeof raw !== 'string') return { ids, malformed: [String(raw)] };
  for (const piece of raw.split(/[;,\s]+/).filter(Boolean)) {
    const m = /^D:?(\d+):(\d+)$/i.exec(piece.trim());
    if (!m) {
      malformed.push(piece);
      continue;
    }
    const id = `D${Number(m[1])}:${Number(m[2])}`;
    if (!ids.includes(id)) ids.push(id);
  }
  return { ids, malformed };
}

/** A turn id as stored: the same normalisation, so `D1:03` in a turn would still match its evidence. */
export function normaliseDiaId(raw: string): string {
  const { ids } = normaliseEvidenceId(raw);
  if (ids.length !== 1) throw new Error(`LoCoMo turn id ${JSON.stringify(raw)} is not D<session>:<turn>`);
  return ids[0]!;
}

/** `"1:56 pm on 8 May, 2023"` → epoch ms, or null when unreadable. */
export function parseLocomoDate(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(text.trim());
  if (!m) return null;
  const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const month = months.indexOf(m[5]!.slice(0, 3).toLowerCase());
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

function sessionNumbers(conversation: Record<string, unknown>): number[] {
  return Object.keys(conversation)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conversation[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export function loadLocomo(data: readonly LocomoConversation[], options: LocomoOptions = {}): EvalDataset {
  const prefix = options.speakerPrefix ?? true;
  const records: JsonlRecord[] = [];
  const questions: EvalQuestion[] = [];
  const notes = { malformedEvidence: [] as string[], unknownEvidence: [] as string[], noEvidence: 0 };
  const truthSession = new Map<string, string>();

  data.forEach((conv, ci) => {
    if (options.conversations && !options.conversations.includes(ci)) return;
    const projectId = `p_locomo${ci}`;
    const c = conv.conversation;
    const a = String(c['speaker_a'] ?? 'A');
    const b = String(c['speaker_b'] ?? 'B');
    records.push({ kind: 'project', id: projectId, name: `LoCoMo ${ci} · ${a} & ${b}`, description: `LoCoMo conversation ${conv.sample_id ?? ci} (CC BY-NC 4.0, Maharana et al. 2024)` });
    const turnIds = new Set<string>();
    let fallback = Date.UTC(2023, 0, 1);
    for (const n of sessionNumbers(c)) {
      const sessionId = `locomo${ci}-s${n}`;
      const started = parseLocomoDate(c[`session_${n}_date_time`]) ?? fallback;
      fallback = started + 86_400_000;
      records.push({ kind: 'session', id: sessionId, project_id: projectId, lineage: 'root', source: 'import', title: null, started_at: new Date(started).toISOString() });
      (c[`session_${n}`] as LocomoTurn[]).forEach((t, i) => {
        const id = normaliseDiaId(t.dia_id);
        turnIds.add(id);
        truthSession.set(`${projectId}|${id}`, sessionId);
        const caption = typeof t.blip_caption === 'string' && t.blip_caption.trim() ? ` [shares a photo: ${t.blip_caption.trim()}]` : '';
        const body = `${t.text ?? ''}${caption}`.trim() || '(empty turn)';
        records.push({
          kind: 'message',
          session_id: sessionId,
          external_id: id,
          role: t.speaker === b ? 'assistant' : 'user',
          content: prefix ? `${t.speaker}: ${body}` : body,
          created_at: new Date(started + i * 30_000).toISOString(),
        });
      });
    }
    conv.qa.forEach((q, qi) => {
      const evidence: string[] = [];
      for (const raw of Array.isArray(q.evidence) ? q.evidence : []) {
        const n = normaliseEvidenceId(raw);
        for (const m of n.malformed) notes.malformedEvidence.push(`conv ${ci} q${qi}: ${JSON.stringify(m)}`);
        for (const id of n.ids) {
          if (!turnIds.has(id)) notes.unknownEvidence.push(`conv ${ci} q${qi}: ${id}`);
          else if (!evidence.includes(id)) evidence.push(id);
        }
      }
      if (evidence.length === 0) notes.noEvidence++;
      questions.push({
        id: `locomo${ci}-q${qi}`,
        projectId,
        query: String(q.question ?? ''),
        category: LOCOMO_CATEGORIES[q.category] ?? `category ${q.category}`,
        split: ci < LOCOMO_DEV_CONVERSATIONS ? 'dev' : 'test',
        evidence: evidence.map((e) => ({ sessionId: truthSession.get(`${projectId}|${e}`)!, externalId: e, unit: e })),
        foreignEvidence: [],
      });
    });
  });
  return { name: 'locomo', records, questions, notes: [
    `${notes.malformedEvidence.length} malformed evidence piece(s) dropped${notes.malformedEvidence.length ? ` (${notes.malformedEvidence.join('; ')})` : ''}`,
    `${notes.unknownEvidence.length} evidence id(s) naming no turn dropped${notes.unknownEvidence.length ? ` (${notes.unknownEvidence.join('; ')})` : ''}`,
    `${notes.noEvidence} question(s) without evidence (not scored)`,
  ] };
}
