/**
 * The closed vocabularies of the wire: message roles and visibilities, session lineage kinds,
 * search modes and sorts. They are the same lists as @recall/schema's enums (the database CHECK
 * constraints); this package may not import the schema (it must stay free of Node and SQLite), so
 * gateway-rpc's contract test asserts the two agree, and the gateway's handlers are typed against
 * these unions, so a new value on one side fails the typecheck or that test.
 */
export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const VISIBILITIES = ['live', 'compacted', 'rewound', 'deleted'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const LINEAGE_KINDS = ['root', 'compression', 'branch', 'reset', 'delegation'] as const;
export type LineageKind = (typeof LINEAGE_KINDS)[number];

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export const SORTS = ['relevance', 'newest', 'oldest'] as const;
export type SearchSort = (typeof SORTS)[number];

/** Longest message text the store accepts (UTF-16 code units); also bounds session_search's `offset`. */
export const MAX_MESSAGE_CHARS = 1_048_576;
