/**
 * `index.status`: what recall can currently use. Stage A ships keyword recall only, so the semantic
 * index reports `disabled` with instructions instead of pretending; keyword coverage is reported as
 * counts of the visible messages and sessions the FTS index serves (it is maintained in the same
 * transaction as every message write, so it is always complete).
 */
import type { RecallDatabase } from '@recall/schema';
import { readTransaction } from '@recall/store';
import { z } from 'zod';
import { method, type GatewayMethod } from './common.js';

export const SEMANTIC_HOW_TO_CONFIGURE =
  'Semantic recall (stage B) is not built into this version. Keyword recall works fully. When it ships, configure an embedding provider in <home>/config.json ("semantic" section) or point it at an OpenAI-compatible endpoint; no history is sent anywhere until you do.';

export interface IndexStatus {
  semantic: {
    status: 'disabled' | 'ready' | 'partial' | 'unavailable';
    reason?: string;
    howToConfigure?: string;
    coverage?: { indexed: number; total: number } | 'unknown';
  };
  keyword: { messages: number; sessions: number };
}

/**
 * Counts of what keyword recall serves: visible (live/compacted) messages of non-hidden sessions.
 * TODO(store): replace with a store-provided keyword index statistic when @recall/store exports one;
 * until then this is a read-only count over the same visibility rule the store uses.
 */
function keywordCounts(db: RecallDatabase): { messages: number; sessions: number } {
  return readTransaction(db, () => {
    const messages = db.raw
      .prepare("select count(*) from messages m join sessions s on s.id = m.session_id where s.hidden = 0 and m.visibility in ('live','compacted')")
      .pluck()
      .get() as number;
    const sessions = db.raw.prepare('select count(*) from sessions where hidden = 0').pluck().get() as number;
    return { messages, sessions };
  });
}

export const indexMethods: GatewayMethod[] = [
  method('index.status', 'Keyword index counts and the semantic index state (disabled until stage B).', z.strictObject({}), (_p, ctx): IndexStatus => ({
    semantic: { status: 'disabled', reason: 'not_configured', howToConfigure: SEMANTIC_HOW_TO_CONFIGURE },
    keyword: keywordCounts(ctx.db),
  })),
];
