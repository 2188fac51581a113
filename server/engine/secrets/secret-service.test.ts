/**
 * The secret service on each database: what is stored, what comes back, and how the
 * in-memory cache of `values()` follows writes from this process and from another one.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../database.ts';
import { migrate } from '../../store/migrate.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { UserError } from '../errors.ts';
import { secretService, SECRET_CHECK_INTERVAL_MS } from './secret-service.ts';

/** A clock the test moves by hand. */
function manualClock(start = 1_750_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** Counts statements, to prove the cache answers without the database. */
function counting(db: Db): { db: Db; count: () => number } {
  let statements = 0;
  const counted: Db = {
    ...db,
    description: db.description,
    dialect: db.dialect,
    all: (sql, params) => (statements++, db.all(sql, params)),
    get: (sql, params) => (statements++, db.get(sql, params)),
    run: (sql, params) => (statements++, db.run(sql, params)),
    unmasked: {
      ...db.unmasked,
      all: (sql, params) => (statements++, db.unmasked.all(sql, params)),
      get: (sql, params) => (statements++, db.unmasked.get(sql, params)),
      run: (sql, params) => (statements++, db.unmasked.run(sql, params)),
    },
  };
  return { db: counted, count: () => statements };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to be rejected');
}

for (const kind of testDatabases()) {
  describe(`secret service on ${kind.name}`, () => {
    let database: TestDatabase;
    let db: Db;
    let other: Db;
    const key = randomBytes(32);

    beforeAll(async () => {
      database = await kind.create();
      db = await openDatabase(database.url);
      await migrate(db);
      // A second connection stands for another process sharing the database.
      other = await openDatabase(database.url);
    });
    afterAll(async () => {
      await other?.close();
      await db?.close();
      await database?.drop();
    });
    beforeEach(async () => {
      await db.run('DELETE FROM secrets');
    });

    it('round-trips values and lists names with their times, never values', async () => {
      const clock = manualClock();
      const secrets = secretService({ db, key, clock });
      await secrets.set('API_TOKEN', 'tok_live_123');
      clock.advance(5);
      await secrets.set('SMTP_PASSWORD', 'correct horse battery staple');
      expect(await secrets.values()).toEqual({ API_TOKEN: 'tok_live_123', SMTP_PASSWORD: 'correct horse battery staple' });

      const listed = await secrets.list();
      expect(listed).toEqual([
        { name: 'API_TOKEN', updatedAt: 1_750_000_000_000 },
        { name: 'SMTP_PASSWORD', updatedAt: 1_750_000_000_005 },
      ]);
      const shown = JSON.stringify(listed);
      expect(shown).not.toContain('tok_live_123');
      expect(shown).not.toContain('correct horse');
    });

    it('replaces a value on set and forgets it on delete', async () => {
      const secrets = secretService({ db, key });
      await secrets.set('API_TOKEN', 'first');
      expect((await secrets.values()).API_TOKEN).toBe('first');
      await secrets.set('API_TOKEN', 'second');
      expect((await secrets.values()).API_TOKEN).toBe('second');
      expect(await secrets.list()).toHaveLength(1);
      expect(await secrets.delete('API_TOKEN')).toBe(true);
      expect(await secrets.delete('API_TOKEN')).toBe(false);
      expect(await secrets.values()).toEqual({});
      expect(await secrets.list()).toEqual([]);
    });

    it('stores neither the value nor its base64 or hex', async () => {
      const value = 'sk_live_very_recognisable_value_42';
      await secretService({ db, key }).set('STRIPE_KEY', value);
      const rows = await db.all('SELECT * FROM secrets');
      expect(rows).toHaveLength(1);
      const stored = JSON.stringify(rows);
      for (const form of [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('base64url'), Buffer.from(value).toString('hex')]) {
        expect(stored).not.toContain(form);
      }
      expect(stored).not.toContain(key.toString('base64'));
      expect(rows[0]).toMatchObject({ name: 'STRIPE_KEY' });
    });

    it('refuses to read secrets with another key, saying which secret and why', async () => {
      await secretService({ db, key }).set('SMTP_PASSWORD', 'hunter2');
      const elsewhere = secretService({ db, key: randomBytes(32) });
      const error = await rejection(elsewhere.values());
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toContain("Secret SMTP_PASSWORD cannot be decrypted with this server's key; ONCEFLOW_SECRET_KEY or secret.key changed.");
      expect(error.message).not.toContain('hunter2');
      // Names stay visible, so the person can set the secret again with the new key.
      expect((await elsewhere.list()).map((secret) => secret.name)).toEqual(['SMTP_PASSWORD']);
      await elsewhere.set('SMTP_PASSWORD', 'hunter3');
      expect(await elsewhere.values()).toEqual({ SMTP_PASSWORD: 'hunter3' });
    });

    it('validates names and values in plain words', async () => {
      const secrets = secretService({ db, key });
      for (const name of ['', 'api_token', '1TOKEN', '_TOKEN', 'API-TOKEN', 'API TOKEN', 'TÖKEN', `A${'B'.repeat(64)}`]) {
        const error = await rejection(secrets.set(name, 'value'));
        expect(error).toBeInstanceOf(UserError);
        expect(error.message).toContain('cannot be used as a secret name');
      }
      await secrets.set(`A${'B'.repeat(63)}`, 'longest name');
      await secrets.set('X', 'shortest name');
      await secrets.set('API_TOKEN_2', 'digits and underscores');
      expect(await rejection(secrets.set('EMPTY', ''))).toHaveProperty('message', 'The value of secret EMPTY is empty; give it a value, or delete the secret.');
      // Too short to be masked without hiding ordinary words along with it.
      for (const short of ['abc', ' ab ', '12', 'x   ']) {
        const error = await rejection(secrets.set('SHORT', short));
        expect(error).toBeInstanceOf(UserError);
        expect(error.message).toContain('The value of secret SHORT is too short: a secret needs at least 4 characters');
      }
      await secrets.set('PIN', '1234');
      await secrets.set('BIG', 'x'.repeat(64 * 1024));
      expect((await rejection(secrets.set('TOO_BIG', 'x'.repeat(64 * 1024 + 1)))).message).toContain('larger than 64 KiB');
      // Counted in bytes: 2-byte characters reach the limit at half the length.
      expect((await rejection(secrets.set('TOO_BIG', 'é'.repeat(32 * 1024 + 1)))).message).toContain('larger than 64 KiB');
      expect(await rejection(secrets.delete('lower'))).toBeInstanceOf(UserError);
      expect((await secrets.list()).map((secret) => secret.name).sort()).toEqual([`A${'B'.repeat(63)}`, 'API_TOKEN_2', 'BIG', 'PIN', 'X']);
    });

    it('answers values() from memory between checks, and re-checks at most once a second', async () => {
      const clock = manualClock();
      const probe = counting(db);
      const secrets = secretService({ db: probe.db, key, clock });
      await secrets.set('API_TOKEN', 'uno-1');
      const first = await secrets.values();
      const afterLoad = probe.count();
      for (let i = 0; i < 20; i++) expect(await secrets.values()).toBe(first);
      expect(probe.count()).toBe(afterLoad);

      clock.advance(SECRET_CHECK_INTERVAL_MS);
      expect(await secrets.values()).toBe(first);
      // Only the change check ran: one aggregate, no rows decrypted again.
      expect(probe.count()).toBe(afterLoad + 1);
    });

    it('sees a change made by another process within a second', async () => {
      const clock = manualClock();
      const here = secretService({ db, key, clock });
      // The other process's clock stands still, so its writes share one millisecond.
      const there = secretService({ db: other, key, clock: manualClock() });
      await here.set('API_TOKEN', 'uno-1');
      expect(await here.values()).toEqual({ API_TOKEN: 'uno-1' });

      await there.set('API_TOKEN', 'dos-2');
      expect(await here.values()).toEqual({ API_TOKEN: 'uno-1' });
      clock.advance(SECRET_CHECK_INTERVAL_MS);
      expect(await here.values()).toEqual({ API_TOKEN: 'dos-2' });

      // Same millisecond, same number of rows: the stored time still moves forward.
      await there.set('API_TOKEN', 'tres-3');
      clock.advance(SECRET_CHECK_INTERVAL_MS);
      expect(await here.values()).toEqual({ API_TOKEN: 'tres-3' });

      await there.delete('API_TOKEN');
      await there.set('OTHER', 'four');
      clock.advance(SECRET_CHECK_INTERVAL_MS);
      expect(await here.values()).toEqual({ OTHER: 'four' });
    });

    it('keeps updated_at moving forward even when the clock does not', async () => {
      const clock = manualClock();
      const secrets = secretService({ db, key, clock });
      await secrets.set('A', 'val-1');
      await secrets.set('B', 'val-2');
      await secrets.set('A', 'val-3');
      const times = await db.all<{ name: string; updated_at: number }>('SELECT name, updated_at FROM secrets ORDER BY updated_at');
      expect(times.map((row) => [row.name, Number(row.updated_at)])).toEqual([
        ['B', 1_750_000_000_001],
        ['A', 1_750_000_000_002],
      ]);
    });

    it('shares one load between concurrent callers, and drops a load overtaken by a write', async () => {
      const probe = counting(db);
      const secrets = secretService({ db: probe.db, key });
      await secrets.set('API_TOKEN', 'uno-1');
      const before = probe.count();
      const all = await Promise.all(Array.from({ length: 10 }, () => secrets.values()));
      expect(new Set(all).size).toBe(1);
      expect(probe.count()).toBe(before + 2);

      await secrets.set('API_TOKEN', 'uno again');
      const stale = secrets.values();
      await secrets.set('API_TOKEN', 'dos-2');
      expect(['uno again', 'dos-2']).toContain((await stale).API_TOKEN);
      expect(await secrets.values()).toEqual({ API_TOKEN: 'dos-2' });
    });

    it('teaches the database masker every value it sets or loads, another process\'s too, and keeps rotated ones', async () => {
      const clock = manualClock();
      // Fresh connections: each has a masker of its own, as each process does.
      const here = await openDatabase(database.url);
      const there = await openDatabase(database.url);
      try {
        const mine = secretService({ db: here, key, clock });
        const theirs = secretService({ db: there, key, clock: manualClock() });
        expect(here.masker.active).toBe(false);
        await mine.set('API_TOKEN', 'tok_rotated_first');
        expect(here.masker.text('a tok_rotated_first b')).toBe('a •••••• b');

        await theirs.set('OTHER_TOKEN', 'tok_from_elsewhere');
        expect(here.masker.text('tok_from_elsewhere')).toBe('tok_from_elsewhere');
        clock.advance(SECRET_CHECK_INTERVAL_MS);
        await mine.values();
        expect(here.masker.text('tok_from_elsewhere')).toBe('••••••');

        // What the masker knows is what the connection stores: rows hold the mark.
        await here.run(`INSERT INTO workers (id, host, pid, started_at, seen_at) VALUES (?, ?, ?, ?, ?)`, ['wrk_masked', 'host tok_from_elsewhere', 1, 1, 1]);
        expect((await there.get<{ host: string }>(`SELECT host FROM workers WHERE id = ?`, ['wrk_masked']))?.host).toBe('host ••••••');
        await here.run(`DELETE FROM workers WHERE id = ?`, ['wrk_masked']);

        // A replaced value may still sit in a run that used it: it stays masked.
        await mine.set('API_TOKEN', 'tok_rotated_second');
        expect(here.masker.text('tok_rotated_first tok_rotated_second')).toBe('•••••• ••••••');
        // The secrets table itself is written unmasked: its ciphertext must survive.
        expect((await mine.values()).API_TOKEN).toBe('tok_rotated_second');
      } finally {
        await here.close();
        await there.close();
      }
    });

    it('hands out a frozen object, so one run cannot change another run\'s secrets', async () => {
      const secrets = secretService({ db, key });
      await secrets.set('API_TOKEN', 'uno-1');
      const values = await secrets.values();
      expect(Object.isFrozen(values)).toBe(true);
    });
  });
}
