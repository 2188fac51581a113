/**
 * The engine's database: the store's one seam (store/db.ts) with the engine's masker in
 * front of every statement parameter, and a failure to open told as a `UserError`.
 * `Db` here is the store's seam whose masker can also learn values and mask answers,
 * which the secret service and the tRPC seam need.
 */
import { openDatabase as openStoreDatabase, type Db as StoreDb } from '../store/db.ts';
import { fromStoreError } from './errors.ts';
import { createMasker, type Masker } from './secrets/masker.ts';

export type Db = StoreDb<Masker>;

/** Opens the database with `masker` (default: a masker of its own, knowing no value yet). */
export async function openDatabase(url: string, options: { masker?: Masker } = {}): Promise<Db> {
  try {
    return await openStoreDatabase(url, { masker: options.masker ?? createMasker() });
  } catch (error) {
    throw fromStoreError(error);
  }
}
