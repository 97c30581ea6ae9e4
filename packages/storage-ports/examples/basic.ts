import { openStorage, redactStorageUrl, StoragePortError } from '@recall/storage-ports';

// A URL with a password is masked before it is logged.
console.log(redactStorageUrl('postgres://recall:s3cret@db.internal:5432/recall'));

// openStorage() validates the configuration and calls the opener the host passed for its kind
// (openSqliteStorage from @recall/store, openPostgresStorage from @recall/store-postgres).
for (const config of [{ kind: 'postgres', url: 'mysql://db.internal/recall' }, { kind: 'postgres', url: 'postgres://db.internal/recall' }] as const) {
  try {
    await openStorage(config, {});
  } catch (error) {
    if (error instanceof StoragePortError) console.log(`${error.code}: ${error.message}`);
    else throw error;
  }
}
