/**
 * Public surface of @recall/schema: the drizzle tables of a profile database, the single
 * `openDatabase()` that every other package uses to reach SQLite (pragmas, private file modes,
 * embedded migrations), profile paths, id minting and the schema's errors. The vocabularies
 * (MESSAGE_ROLES, VISIBILITIES, LINEAGE_KINDS) are imported from @recall/rpc-contract.
 */
export { projects, projectFolders, sessions, messages, semanticFingerprints, semanticProjects, semanticChunks, semanticDirtySessions, semanticGeneration, semanticMessageMark } from './tables.js';
export { VISIBLE_VISIBILITIES, CONVERSATION_EDGES } from './enums.js';
export { openDatabase, profileDatabasePath, assertProfileName, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './database.js';
export type { RecallDatabase, RawDatabase, DrizzleDatabase, OpenDatabaseOptions } from './database.js';
export { migrationStatus } from './migration-status.js';
export type { MigrationStatus } from './migration-status.js';
export { newProjectId, newSessionId } from './ids.js';
export { RecallSchemaError, InvalidProfileNameError, MigrationError } from './errors.js';
