/**
 * The closed vocabularies of the data model, spelled exactly as @recall/schema spells them (a test
 * compares the two). Copied rather than imported because @recall/schema's entry point loads
 * better-sqlite3, which a PostgreSQL deployment does not need.
 */
export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
export const VISIBILITIES = ['live', 'compacted', 'rewound', 'deleted'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
/** live and compacted rows are visible to recall; rewound and deleted rows never are. */
export const VISIBLE_VISIBILITIES = ['live', 'compacted'] as const satisfies readonly Visibility[];
export const LINEAGE_KINDS = ['root', 'compression', 'branch', 'reset', 'delegation'] as const;
export type LineageKind = (typeof LINEAGE_KINDS)[number];
