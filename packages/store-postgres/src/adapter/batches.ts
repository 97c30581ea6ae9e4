/**
 * WriteBatches on PostgreSQL: a batch program runs on one pooled client inside BEGIN … COMMIT, its
 * store calls awaited one after another on that client (the ProjectStore, SessionStore and
 * MessageStore of this adapter bound to it, each write a savepoint — none in bulk mode), and
 * `batchIsolate` steps in savepoints of their own.
 */
import { driveBatchAsync, type BatchStores, type WriteBatches } from '@recall/storage-ports';
import type pg from 'pg';
import { postgresMessages } from './messages.js';
import { postgresProjects } from './projects.js';
import { postgresSessions } from './sessions.js';
import { asBulk, inSavepoint, write, type Tx } from './tx.js';

function batchStores(tx: Tx): BatchStores {
  const projects = postgresProjects(tx);
  const sessions = postgresSessions(tx);
  const messages = postgresMessages(tx);
  return {
    projects: { find: projects.find, create: projects.create, archive: projects.archive, forFolder: projects.forFolder },
    sessions: { find: sessions.find, create: sessions.create, upsert: sessions.upsert, update: sessions.update, projectId: sessions.projectId },
    messages: { append: messages.append },
  };
}

/** The WriteBatches of a team database. */
export function postgresWriteBatches(pool: pg.Pool): WriteBatches {
  return {
    run(program, options = {}) {
      return write(pool, (tx) => {
        const stores = batchStores(tx);
        const drive = () => driveBatchAsync(program(stores), options.bulk ? (run) => run() : (run) => inSavepoint(tx, run));
        return options.bulk ? asBulk(tx, drive) : drive();
      });
    },
  };
}
