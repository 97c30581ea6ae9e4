/**
 * The storage ports' conformance suite on the PostgreSQL adapter: one throwaway cluster for the
 * file, a fresh database per test (the same suite runs on SQLite in packages/store and, with the
 * semantic rows, in packages/semantic).
 */
import { describeStorageConformance } from '@recall/storage-ports/testing';
import { openPostgresStorage } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();

describeStorageConformance('postgres', () => openPostgresStorage({ kind: 'postgres', url: cluster.freshUrl() }), { semantic: true });
