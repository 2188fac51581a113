/**
 * For a describe block: the server's services on a fresh database of one kind, made before
 * its tests; after them the workers its tests started stop, the services close and the
 * database is dropped.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Worker } from '../engine/worker.ts';
import type { Services } from '../services.ts';
import type { TestDatabase, TestDatabaseKind } from './databases.ts';
import { createTestServices } from './engine-harness.ts';

export function useTestServices(kind: TestDatabaseKind): { services: () => Services; workers: Worker[] } {
  let database: TestDatabase | undefined;
  let services: Services | undefined;
  const workers: Worker[] = [];
  beforeAll(async () => {
    database = await kind.create();
    services = await createTestServices(database.url);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop(0)));
    await services?.close();
    await database?.drop();
  });
  return {
    services: () => {
      if (!services) throw new Error('the services are not made yet');
      return services;
    },
    workers,
  };
}
