/**
 * WriteBatches on SQLite: a batch program runs synchronously inside one BEGIN IMMEDIATE transaction
 * of the profile connection (bulkWrite in bulk mode: no savepoint per store call), so nothing else
 * on the connection can interleave with it; `batchIsolate` steps are savepoints (writeTransaction
 * nested). The store calls are today's functions, unchanged.
 */
import type { RecallDatabase } from '@recall/schema';
import { driveBatchSync, type BatchStores, type WriteBatches } from '@recall/storage-ports';
import { appendMessages } from './messages.js';
import { archiveProject, createProject, findProject, projectForFolder } from './projects.js';
import { createSession, findSession, sessionProjectId, updateSession, upsertSession } from './sessions.js';
import { bulkWrite, writeTransaction } from './transaction.js';

function batchStores(db: RecallDatabase): BatchStores {
  return {
    projects: {
      find: (id) => findProject(db, id),
      create: (input) => {
        const { folders, ...rest } = input;
        return createProject(db, { ...rest, ...(folders ? { folders: [...folders] } : {}) });
      },
      archive: (id, archived = true) => archiveProject(db, id, archived),
      forFolder: (path, options = {}) => projectForFolder(db, path, options),
    },
    sessions: {
      find: (id) => findSession(db, id),
      create: (input) => createSession(db, input as Parameters<typeof createSession>[1]),
      upsert: (input) => upsertSession(db, input as Parameters<typeof upsertSession>[1]),
      update: (id, changes) => updateSession(db, id, changes),
      projectId: (id) => sessionProjectId(db, id),
    },
    messages: {
      append: (id, messages) => appendMessages(db, id, messages as Parameters<typeof appendMessages>[2]),
    },
  };
}

/** The WriteBatches of an open profile database. */
export function sqliteWriteBatches(db: RecallDatabase): WriteBatches {
  const stores = batchStores(db);
  const inSavepoint = <U>(run: () => U): U => writeTransaction(db, run);
  return {
    run(program, options = {}) {
      try {
        const transaction = options.bulk ? bulkWrite : writeTransaction;
        return Promise.resolve(transaction(db, () => driveBatchSync(program(stores), inSavepoint)));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
