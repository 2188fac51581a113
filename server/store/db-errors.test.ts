/**
 * Values the database refuses are told apart from faults, on real errors from both
 * engines, raw and through a store; a tRPC procedure whose input reached such a query answers
 * 400 (the safety net behind the input schemas), never 500.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readEnv } from '../env.ts';
import { createServices, type Services } from '../services.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { procedure, router } from '../trpc/trpc.ts';
import { refusedValue, refusedValueMessage } from './db-errors.ts';

async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return undefined;
}

// A procedure without input checks, as a router that forgot one would be.
const unchecked = router({
  find: procedure.input(z.object({ text: z.string() })).query(({ ctx, input }) => ctx.services.db.get('SELECT id FROM runs WHERE id = ?', [input.text])),
});

for (const kind of testDatabases()) {
  describe(`values the database refuses on ${kind.name}`, () => {
    let database: TestDatabase;
    let services: Services;

    beforeAll(async () => {
      database = await kind.create();
      services = await createServices(readEnv({
        DATABASE_URL: database.url, ONCEFLOW_DATA_DIR: mkdtempSync(join(tmpdir(), 'onceflow-data-')), ONCEFLOW_LOG_LEVEL: 'silent', ONCEFLOW_SANDBOX: '0',
      }));
    });
    afterAll(async () => {
      await services?.close();
      await database?.drop();
    });

    it('calls faults of the server or the query faults, not refused values', async () => {
      const syntax = await errorOf(() => services.db.get('SELEC 1'));
      const missing = await errorOf(() => services.db.get('SELECT nothing FROM no_such_table'));
      expect(syntax).toBeInstanceOf(Error);
      expect(refusedValue(syntax)).toBeNull();
      expect(refusedValue(missing)).toBeNull();
      expect(refusedValue(new Error('connect ECONNREFUSED'))).toBeNull();
      expect(refusedValue(Object.assign(new Error('socket'), { code: 'EPIPE' }))).toBeNull();
    });

    it.runIf(kind.name === 'postgresql')('recognises PostgreSQL\'s refusals, raw and through a store', async () => {
      expect(refusedValue(await errorOf(() => services.db.get('SELECT id FROM runs WHERE id = ?', ['run\u0000'])))).toBe('invalid');
      expect(refusedValue(await errorOf(() => services.db.get('SELECT id FROM runs WHERE seq = ?', ['99999999999999999999999'])))).toBe('invalid');
      expect(refusedValue(await errorOf(() => services.db.get('SELECT id FROM runs WHERE seq = ?', [2 ** 40])))).toBe('invalid');
      expect(refusedValue(await errorOf(() => services.flows.get('flow\u0000')))).toBe('invalid');
      // An index entry holds at most about 2.7 KB; random text does not compress below that.
      const huge = Array.from({ length: 12_000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('');
      const tooLarge = await errorOf(() => services.db.run('INSERT INTO secrets (name, ciphertext, iv, tag, updated_at) VALUES (?, ?, ?, ?, ?)', [huge, 'x', 'x', 'x', 0]));
      expect(refusedValue(tooLarge)).toBe('too-large');
      const wrapped = new Error('while listing', { cause: await errorOf(() => services.db.get('SELECT id FROM runs WHERE id = ?', ['\u0000'])) });
      expect(refusedValue(wrapped)).toBe('invalid');
    });

    it('answers 400 in plain words when a refused value reaches a query behind tRPC', async () => {
      const caller = unchecked.createCaller({ services, user: 'admin' });
      const outcome = await errorOf(() => caller.find({ text: 'run\u0000' }));
      if (kind.name === 'sqlite') {
        // SQLite stores and compares NUL like any character: nothing to refuse.
        expect(outcome).toBeUndefined();
        return;
      }
      expect(outcome).toMatchObject({ code: 'BAD_REQUEST', message: refusedValueMessage('invalid') });
    });
  });
}
