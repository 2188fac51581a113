import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../testing/databases.ts';
import { until } from '../testing/wait-for.ts';
import { openDatabase } from './db.ts';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.ts';

/**
 * The WAL header's checkpoint sequence number (bytes 12–15, big-endian), which SQLite
 * increases each time a write has the WAL start over from its beginning.
 */
function walCheckpointSequence(path: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(`${path}-wal`, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

describe('SQLite checkpoints on their own thread', () => {
  it('copies committed pages into the database file without any commit doing it', async () => {
    const database = createSqliteDatabase();
    const path = database.url.replace(/^file:/, '');
    const db = await openDatabase(database.url);
    try {
      await db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
      const before = statSync(path).size;
      // About 1,000 pages: far below the automatic threshold, so only the thread can move them.
      const page = 'x'.repeat(3800);
      for (let batch = 0; batch < 10; batch++) {
        await db.transaction(async (tx) => {
          for (let row = 0; row < 100; row++) await tx.run('INSERT INTO filler (data) VALUES (?)', [page]);
        });
      }
      expect(1000).toBeLessThan(FALLBACK_AUTOCHECKPOINT_PAGES);
      // Nothing is written from here on: only the thread's checkpoint can grow the file.
      await until('the checkpoint to copy the pages into the database file', () => statSync(path).size > before + 900 * 4096, { everyMs: CHECKPOINT_INTERVAL_MS / 4 });
      expect(statSync(path).size).toBeGreaterThan(before + 900 * 4096);
      expect(await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM filler')).toEqual({ n: 1000 });
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('has the WAL start over under steady writes, pausing them only between transactions', async () => {
    const database = createSqliteDatabase();
    const path = database.url.replace(/^file:/, '');
    // The main connection as db.ts opens it, without its safety net: only the thread can
    // have the WAL start over here.
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
    const checkpointer = startCheckpointer(path, { intervalMs: 20, restartFrames: 256 });
    const insert = db.prepare('INSERT INTO filler (data) VALUES (?)');
    const writeTwenty = db.transaction(() => {
      for (let row = 0; row < 20; row++) insert.run('x'.repeat(3800));
    });
    let written = 0;
    let pausedWrites = 0;
    const startsOver: number[] = [];
    try {
      // Measured once the thread is copying: its first pass has grown the database file.
      const before = statSync(path).size;
      writeTwenty();
      written += 20;
      await until('the thread to start checkpointing', () => statSync(path).size > before, { everyMs: 10 });
      const firstSequence = walCheckpointSequence(path);
      // Each row a page, in transactions back to back as a busy server commits them, until
      // the WAL has started over three times. How many pages that takes depends on how fast
      // the disk syncs (a few hundred here, thousands on a disk busy with other writers);
      // without the thread's pauses it does not (none in 30,000 pages on an idle machine):
      // steady writes find frames not yet copied. The cap (about 120 MiB) ends a test the
      // mechanism fails.
      while (startsOver.length < 3 && written < 30_000) {
        const paused = checkpointer.writeStarting();
        if (paused) {
          pausedWrites++;
          await paused;
        }
        try {
          writeTwenty();
          written += 20;
        } finally {
          checkpointer.writeEnded();
        }
        if (walCheckpointSequence(path) !== firstSequence + startsOver.length) startsOver.push(written);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      await checkpointer.stop();
    }
    // Whether a write had to wait depends on the machine: where other work slows the writer,
    // a pass may copy every frame between two transactions and the WAL starts over unpaused.
    expect(startsOver, `pages written when the WAL started over (of ${written}, ${pausedWrites} writes paused)`).toHaveLength(3);
    expect(db.prepare('SELECT COUNT(*) AS n FROM filler').get()).toEqual({ n: written });
    db.close();
    await database.drop();
  });

  it('stops with the database, leaving it whole for the next process', async () => {
    const database = createSqliteDatabase();
    const first = await openDatabase(database.url);
    await first.exec('CREATE TABLE t (v INTEGER)');
    await first.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (42)'));
    await first.close();
    const second = await openDatabase(database.url);
    expect(await second.get('SELECT v FROM t')).toEqual({ v: 42 });
    await second.close();
    await database.drop();
  });
});
