/**
 * Shared shapes of the retrieval eval: a dataset is recall-jsonl records (imported through the real
 * importer) plus questions whose evidence names messages by session id and external id, which the
 * runner resolves to database ids after the import. Evidence is grouped in units: a LoCoMo unit is
 * one turn (one message); a MemoryBank unit is one query/response pair (two messages, found when
 * either is).
 */

/** One recall-jsonl v1 line (DESIGN §8), validated by the importer, not here. */
export type JsonlRecord = Record<string, unknown> & { kind: 'project' | 'session' | 'message' };

export interface EvidenceMessage {
  sessionId: string;
  externalId: string;
  /** Evidence unit this message belongs to (a turn); recall counts units, not messages. */
  unit: string;
}

export interface EvalQuestion {
  id: string;
  /** The project the question is asked from (a fresh session of it). */
  projectId: string;
  query: string;
  /** LoCoMo category name, or the MemoryBank question kind (exact, paraphrase, english, foreign). */
  category: string;
  split: 'dev' | 'test';
  /** Evidence in the asking project; empty = not scored for recall. */
  evidence: EvidenceMessage[];
  /** Where the answer really is when it lives only in ANOTHER project (MemoryBank `foreign`). */
  foreignEvidence: EvidenceMessage[];
  foreignProjectId?: string;
}

export interface EvalDataset {
  name: string;
  records: JsonlRecord[];
  questions: EvalQuestion[];
  /** Loader notes for the report (normalised ids, dropped evidence, unscored questions). */
  notes: string[];
}
