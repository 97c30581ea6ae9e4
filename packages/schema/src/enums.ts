/**
 * The closed vocabularies of the data model (roles, message visibility, session lineage kinds) as
 * `as const` tuples plus zod enums, so the drizzle schema, the store's validation and the tool's
 * argument schema all spell them from one place.
 */
import { z } from 'zod';

export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
export const messageRoleSchema = z.enum(MESSAGE_ROLES);

/** live and compacted rows are visible to recall; rewound and deleted rows never are. */
export const VISIBILITIES = ['live', 'compacted', 'rewound', 'deleted'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const VISIBLE_VISIBILITIES = ['live', 'compacted'] as const satisfies readonly Visibility[];

/**
 * How a session relates to its parent. compression and delegation children belong to the parent's
 * logical conversation; branch and reset start a new one that only inherits the project at creation.
 */
export const LINEAGE_KINDS = ['root', 'compression', 'branch', 'reset', 'delegation'] as const;
export type LineageKind = (typeof LINEAGE_KINDS)[number];
export const lineageKindSchema = z.enum(LINEAGE_KINDS);
/** Edges that stay inside one logical conversation. */
export const CONVERSATION_EDGES = ['compression', 'delegation'] as const satisfies readonly LineageKind[];
