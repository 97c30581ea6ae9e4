/**
 * StorageStats: the few whole-store counts and samples a status screen shows (the Index panel's
 * keyword line, the "this project is mostly Chinese" hint of the English-only model), so hosts
 * need no SQL of their own. Read-only; never any text of another project than the one asked for.
 */

/** What keyword recall serves: visible messages of non-hidden sessions, those sessions, and the logical conversations they form. */
export interface KeywordCounts {
  messages: number;
  sessions: number;
  /** A compression continuation or delegation whose non-hidden parent exists folds into it (as the sidebar counts). */
  conversations: number;
}

/** Bounds of StorageStats.textSample. */
export interface TextSampleOptions {
  /** The project's newest (by start) non-hidden sessions to look at. */
  sessions: number;
  /** At most this many of their newest visible user/assistant messages. */
  messages: number;
  /** The first characters of each message. */
  chars: number;
}

/** Counts and samples for status screens. */
export interface StorageStats {
  /** Counts of what keyword recall serves, read in one snapshot. */
  keywordCounts(): Promise<KeywordCounts>;
  /** The first `chars` characters of a bounded sample of one project's newest visible user/assistant messages (newest first). */
  textSample(projectId: string, options: TextSampleOptions): Promise<string[]>;
}
