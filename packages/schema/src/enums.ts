/**
 * The closed vocabularies of the data model as the database uses them. The tuples themselves
 * (MESSAGE_ROLES, VISIBILITIES, LINEAGE_KINDS) live in @recall/rpc-contract, the one home of the
 * wire vocabulary; this module adds the subsets the SQL needs.
 */
import type { LineageKind, Visibility } from '@recall/rpc-contract';

export { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from '@recall/rpc-contract';

/**
 * The visibilities readers and search see (`live`, `compacted`); `rewound` and `deleted` rows are
 * never returned. Use in SQL as `visibility in ('live','compacted')`.
 */
export const VISIBLE_VISIBILITIES = ['live', 'compacted'] as const satisfies readonly Visibility[];

/**
 * Lineage edges that stay inside one logical conversation (`compression`, `delegation`): a walk along
 * them from any session reaches every segment of its conversation. `branch` and `reset` start a new one.
 */
export const CONVERSATION_EDGES = ['compression', 'delegation'] as const satisfies readonly LineageKind[];
