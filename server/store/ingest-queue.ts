/**
 * Where a webhook delivery is made durable before it is acknowledged. SQLite gathers the
 * transactions that arrive together into one commit already (db.ts), so there a delivery
 * is one job of the next group commit. On PostgreSQL deliveries that arrive together go
 * in one batch statement (statement-batcher.ts, inbound-batch.ts), each (hook, event id)
 * once per statement: a repeat of an id in the same batch waits for the next, where it
 * finds the run its first delivery queued.
 */
import type { Db } from './db.ts';
import { ingestDelivery, type Delivery, type IngestResult } from './inbound.ts';
import { ingestBatch } from './inbound-batch.ts';
import { statementBatcher } from './statement-batcher.ts';

export type Ingest = (delivery: Delivery) => Promise<IngestResult>;

export function ingestQueue(db: Db): Ingest {
  if (db.dialect === 'sqlite') return (delivery) => db.durably((sql) => ingestDelivery(sql, delivery));
  return statementBatcher<Delivery, IngestResult>({
    writeBatch: (deliveries) => ingestBatch(db, deliveries),
    writeOne: (delivery) => ingestDelivery(db, delivery),
    key: (delivery) => `${delivery.hookId}\u0000${delivery.eventId}`,
  });
}
