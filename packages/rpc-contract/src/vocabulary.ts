/**
 * The closed vocabularies of the wire: message roles and visibilities, session lineage kinds,
 * search modes and sorts. This is their one home: @recall/schema builds its columns from these
 * tuples and @recall/store validates with them, so the database, the store and every client spell
 * them from the same place.
 */

/** Who wrote a message: the OpenAI chat roles, in this order. */
export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
/** One of MESSAGE_ROLES. */
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/**
 * What happened to a stored message: `live` and `compacted` messages are visible to readers and
 * search; `rewound` (cut off by a rewind) and `deleted` messages never are.
 */
export const VISIBILITIES = ['live', 'compacted', 'rewound', 'deleted'] as const;
/** One of VISIBILITIES. */
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * How a session relates to its parent: `root` has none; `compression` (a continuation after a
 * compress) and `delegation` (a hidden sub-agent run) stay in the parent's logical conversation;
 * `branch` and `reset` start a new conversation that only inherits the project at creation.
 */
export const LINEAGE_KINDS = ['root', 'compression', 'branch', 'reset', 'delegation'] as const;
/** One of LINEAGE_KINDS. */
export type LineageKind = (typeof LINEAGE_KINDS)[number];

/** session_search's `mode`: hybrid (keyword + semantic, fused), keyword only, or semantic only. */
export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
/** One of SEARCH_MODES. */
export type SearchMode = (typeof SEARCH_MODES)[number];

/** session_search's `sort`: best match first, or newest / oldest first among the best matches. */
export const SORTS = ['relevance', 'newest', 'oldest'] as const;
/** One of SORTS. */
export type SearchSort = (typeof SORTS)[number];

/** Longest message text the store accepts (UTF-16 code units, 1 MiB); also bounds session_search's `offset`. */
export const MAX_MESSAGE_CHARS = 1_048_576;

/**
 * Writing systems a semantic model may declare it reads (`semantic.scripts` in config.json; the
 * built-in USE-lite model reads `latin` only). A query written only in scripts the model does not
 * read keeps a semantic match only when the matching passage shares the query's script; `other`
 * stands for any letter of a script not listed here.
 */
export const WRITING_SCRIPTS = ['latin', 'greek', 'cyrillic', 'armenian', 'hebrew', 'arabic', 'devanagari', 'bengali', 'thai', 'georgian', 'hangul', 'hiragana', 'katakana', 'han', 'other'] as const;
/** One of WRITING_SCRIPTS. */
export type WritingScript = (typeof WRITING_SCRIPTS)[number];
