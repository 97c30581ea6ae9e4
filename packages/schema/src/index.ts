/**
 * Public surface of @recall/schema: tables, vocabularies, ids, errors and the single
 * `openDatabase()` that every other package uses to reach SQLite.
 */
export { projects, projectFolders, sessions, messages, semanticFingerprints, semanticProjects, semanticChunks, semanticDirtySessions, semanticGeneration, semanticMessageMark } from './tables.js';
export {
  MESSAGE_ROLES,
  VISIBILITIES,
  VISIBLE_VISIBILITIES,
  LINEAGE_KINDS,
  CONVERSATION_EDGES,
  messageRoleSchema,
  lineageKindSchema,
} from './enums.js';
export type { MessageRole, Visibility, LineageKind } from './enums.js';
export { openDatabase, profileDatabasePath, assertProfileName, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './database.js';
export type { RecallDatabase, RawDatabase, DrizzleDatabase, OpenDatabaseOptions } from './database.js';
export { newProjectId, newSessionId } from './ids.js';
export { RecallSchemaError, InvalidProfileNameError, MigrationError } from './errors.js';
