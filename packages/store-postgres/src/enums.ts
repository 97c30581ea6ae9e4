/**
 * The closed vocabularies of the data model come from @recall/rpc-contract, their one home (zod
 * only: importing @recall/schema would load better-sqlite3, which a PostgreSQL deployment does not
 * need). Only the visible subset is this package's own, equal to @recall/schema's (a test compares).
 */
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES, type LineageKind, type MessageRole, type Visibility } from '@recall/rpc-contract';

export { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES };
export type { LineageKind, MessageRole, Visibility };
/** live and compacted rows are visible to recall; rewound and deleted rows never are. */
export const VISIBLE_VISIBILITIES = ['live', 'compacted'] as const satisfies readonly Visibility[];
