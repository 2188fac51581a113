/**
 * Rows written at the commit (Sql.batchAtCommit), on each database: outside a transaction
 * a row is written at once; inside transactions committed together every row of a
 * transaction that committed is written and none of one that was rolled back; on SQLite
 * they wait for the commit, so the transaction's own later statements do not see them; a
 * refused batch fails its transaction whole.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { batchRows } from './batch.ts';
import type { Db, Sql } from './db.ts';

const notes = async (db: Sql) => (await db.all<{ note: string }>('SELECT note FROM batch_probe ORDER BY n')).map((row) => row.note);

for (const kind of testDatabases()) {
  describe(`rows written at the commit, on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);
    const insert = (db: Db) => `INSERT INTO batch_probe (n, note) SELECT n, note FROM ${batchRows(db.dialect, [['n', 'int'], ['note', 'text']])}`;

    it('writes a row at once outside a transaction', async () => {
      const db = database();
      await db.exec('CREATE TABLE batch_probe (n INTEGER NOT NULL, note TEXT NOT NULL)');
      await db.batchAtCommit(insert(db), [1, 'alone']);
      expect(await notes(db)).toEqual(['alone']);
    });

    it('writes every row of the transactions that commit and none of one rolled back', async () => {
      const db = database();
      await db.run('DELETE FROM batch_probe');
      const seenInside: string[][] = [];
      const outcomes = await Promise.allSettled([
        db.transaction(async (tx) => {
          await tx.batchAtCommit(insert(db), [2, 'first']);
          await tx.batchAtCommit(insert(db), [3, 'first again']);
          seenInside.push(await notes(tx));
        }),
        db.transaction(async (tx) => {
          await tx.batchAtCommit(insert(db), [4, 'rolled back']);
          throw new Error('refused');
        }),
        db.transaction((tx) => tx.batchAtCommit(insert(db), [5, 'last'])),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await notes(db)).toEqual(['first', 'first again', 'last']);
      // SQLite writes them after the last transaction of the commit; PostgreSQL at once.
      expect(seenInside).toEqual([db.dialect === 'sqlite' ? [] : ['first', 'first again']]);
    });

    it('fails its transaction when the batch is refused, and writes nothing of it', async () => {
      const db = database();
      await db.run('DELETE FROM batch_probe');
      // Its note column is NOT NULL: the batch is refused, on either database.
      const refused = `INSERT INTO batch_probe (n, note) SELECT n, NULL FROM ${batchRows(db.dialect, [['n', 'int'], ['note', 'text']])}`;
      const write = (tx: Sql) => tx.batchAtCommit(refused, [6, 'refused']);
      const outcome = await Promise.allSettled([db.transaction(async (tx) => { await tx.run(`INSERT INTO batch_probe (n, note) VALUES (7, 'beside')`); await write(tx); })]);
      expect(outcome[0]!.status).toBe('rejected');
      expect(await notes(db)).toEqual([]);
    });
  });
}
