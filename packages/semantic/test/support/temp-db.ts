/**
 * Test support: real SQLite files in a fresh temp directory per test, opened through the one
 * openDatabase(); everything is closed and removed after each test (shared helper in @recall/config).
 */
import { tempDatabases } from '@recall/config/temp-databases';
import { openDatabase, type RecallDatabase } from '@recall/schema';

export const { tempDir, tempDb, openAgain } = tempDatabases<RecallDatabase>(openDatabase, 'recall-semantic-');
