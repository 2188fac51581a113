/**
 * `onceflow secrets …` through a real tRPC client, the secrets router (zod, error
 * translation) and the secret service on a SQLite database: what is printed, what is
 * stored, and that a value is never printed.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { createTRPCClient, unstable_localLink } from '@trpc/client';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorMessage } from '../engine/errors.ts';
import { secretService, type SecretService } from '../engine/secrets/secret-service.ts';
import type { Services } from '../services.ts';
import { openDatabase, type Db } from '../engine/database.ts';
import { migrate } from '../store/migrate.ts';
import { createSqliteDatabase } from '../testing/databases.ts';
import { secretsRouter } from '../trpc/secrets.ts';
import { router } from '../trpc/trpc.ts';
import type { Client } from './client.ts';
import { secretsCommand, type SecretsIo } from './secrets.ts';

const testRouter = router({ secrets: secretsRouter });

describe('onceflow secrets', () => {
  const database = createSqliteDatabase();
  let db: Db;
  let secrets: SecretService;
  let client: Client;

  beforeAll(async () => {
    db = await openDatabase(database.url);
    await migrate(db);
    secrets = secretService({ db, key: randomBytes(32) });
    const services = { secrets, log: pino({ level: 'silent' }) } as unknown as Services;
    const trpc = createTRPCClient<typeof testRouter>({
      links: [unstable_localLink({ router: testRouter, createContext: async () => ({ services, user: 'test' }) })],
    });
    client = trpc as unknown as Client;
  });
  afterAll(async () => {
    await db?.close();
    await database.drop();
  });
  beforeEach(async () => {
    await db.run('DELETE FROM secrets');
  });

  /** Runs the command with `input` piped to it; returns what it printed, or its error. */
  async function run(args: string[], input?: Readable): Promise<{ printed: string[]; prompts: string[]; error?: string }> {
    const printed: string[] = [];
    const prompts: string[] = [];
    const io: SecretsIo = { stdin: input ?? Readable.from([]), print: (line) => printed.push(line), prompt: (text) => prompts.push(text) };
    try {
      await secretsCommand(client, args, io);
      return { printed, prompts };
    } catch (error) {
      return { printed, prompts, error: errorMessage(error) };
    }
  }

  it('sets a secret given on the command line, and never prints its value', async () => {
    const result = await run(['set', 'API_TOKEN', 'tok_abc 123']);
    expect(result).toEqual({ printed: ['Secret API_TOKEN saved. Use it as {{ secrets.API_TOKEN }}.'], prompts: [] });
    expect(await secrets.values()).toEqual({ API_TOKEN: 'tok_abc 123' });
  });

  it('reads the value from standard input with - or without a value, trimming one trailing newline', async () => {
    await run(['set', 'PIPED', '-'], Readable.from([Buffer.from('line one\n')]));
    await run(['set', 'BARE'], Readable.from([Buffer.from('  spaced  \r\n')]));
    await run(['set', 'TWO_NEWLINES', '-'], Readable.from([Buffer.from('keep one\n\n')]));
    expect(await secrets.values()).toEqual({ PIPED: 'line one', BARE: '  spaced  ', TWO_NEWLINES: 'keep one\n' });
  });

  it('reads a typed value at a terminal with the echo off', async () => {
    const terminal = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[] });
    const tty = Object.assign(terminal, { setRawMode: (mode: boolean) => terminal.modes.push(mode) });
    const pending = run(['set', 'TYPED'], tty);
    tty.write('hunter3');
    tty.write('\u007f2\r');
    const result = await pending;
    expect(result.error).toBeUndefined();
    expect(tty.modes).toEqual([true, false]);
    expect(result.prompts.join('')).toBe('Value for TYPED (typing is hidden): \n');
    expect(JSON.stringify(result)).not.toContain('hunter');
    expect(await secrets.values()).toEqual({ TYPED: 'hunter2' });
  });

  it('cancels on Ctrl-C at a terminal without saving', async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const pending = run(['set', 'TYPED'], tty);
    tty.write('abc\u0003');
    expect((await pending).error).toBe('Cancelled; nothing was saved.');
    expect(await secrets.list()).toEqual([]);
  });

  it('refuses an empty value and a bad name in plain words', async () => {
    expect((await run(['set', 'EMPTY', '-'], Readable.from([Buffer.from('\n')]))).error).toMatch(/^No value was given for EMPTY/);
    expect((await run(['set', 'api_token', 'x'])).error).toMatch(/^"api_token" cannot be used as a secret name/);
    expect((await run(['set', 'A', 'two', 'words'])).error).toMatch(/put a value with spaces in quotes/);
    expect((await run(['set'])).error).toMatch(/^Name the secret to set/);
    expect(await secrets.list()).toEqual([]);
  });

  it('lists names and times, never values', async () => {
    expect((await run(['list'])).printed).toEqual(['No secrets yet. Add one with: onceflow secrets set NAME']);
    await secrets.set('SMTP_PASSWORD', 'pw-value-1');
    await secrets.set('API_TOKEN', 'tok-value-2');
    const plain = await run(['list']);
    expect(plain.printed.map((line) => line.split('\t')[0])).toEqual(['API_TOKEN', 'SMTP_PASSWORD']);
    expect(plain.printed[0]).toMatch(/^API_TOKEN\tchanged \d{4}-\d\d-\d\dT/);
    const json = await run(['list', '--json']);
    const listed = JSON.parse(json.printed.join('\n')) as { name: string; updatedAt: number }[];
    expect(listed.map((secret) => Object.keys(secret).sort())).toEqual([['name', 'updatedAt'], ['name', 'updatedAt']]);
    expect(JSON.stringify([plain, json])).not.toMatch(/value-1|value-2/);
  });

  it('deletes a secret, and says so when there was none', async () => {
    await secrets.set('API_TOKEN', 'value-x');
    expect((await run(['delete', 'API_TOKEN'])).printed[0]).toMatch(/^Secret API_TOKEN deleted\./);
    expect((await run(['delete', 'API_TOKEN'])).error).toBe('No secret named API_TOKEN is stored; `onceflow secrets list` shows the names.');
    expect((await run(['delete'])).error).toMatch(/^Name the secret to delete/);
  });

  it('explains the subcommands when given another', async () => {
    expect((await run(['show', 'API_TOKEN'])).error).toMatch(/onceflow secrets set NAME/);
  });
});
