/**
 * Masking is a property of the write path (DESIGN.md §10). Seeded secrets with awkward
 * characters go through every step kind that can carry one (http.request in the query,
 * headers and a JSON body; message.post whose address is the secret; email.send with the
 * SMTP password and a secret in subject and text), to receivers that echo them back, in
 * every outcome (success, 4xx and 5xx echo, unreachable, timeout, key conflict, needs
 * review, each review decision) and through a webhook delivery. Then no value may be read,
 * in any encoded form, from the database (the SQLite file and its WAL as bytes, and every
 * text column on both engines), the server's debug log, tRPC answers, exports or the CLI.
 *
 * The seed is printed in the suite's name; ONCEFLOW_MASKING_SEED repeats a run.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../chaos/random.ts';
import { openDatabase } from '../../store/db.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { startEchoMailServer, startEchoReceiver, type EchoMailServer, type EchoReceiver } from '../../testing/echo-receivers.ts';
import { postJson } from '../../testing/http-client.ts';
import { findLeaks } from '../../testing/leak-detector.ts';
import { freePort, startServerProcess, type ServerProcess } from '../../testing/server-process.ts';
import { SECRET_MASK } from './masker.ts';
import { maskingFlows } from '../../testing/masking-flows.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SEED = Number(process.env.ONCEFLOW_MASKING_SEED ?? 20_251_130);

// Printable ASCII only where a header must carry the value; anything elsewhere.
const HEADER_SAFE = ['a', 'Z', '7', '"', '\\', '&', '%', '%20', ' ', '+', '/', "'", '=', ':', '_', '-', '<', '>'];
const ANYWHERE = [...HEADER_SAFE, 'ü', 'ß', '€', 'Grüße€', '😀'];

function awkward(random: () => number, pieces: string[], min: number, max: number): string {
  const length = min + Math.floor(random() * (max - min + 1));
  let value = '';
  while ([...value].length < length - 2) value += pieces[Math.floor(random() * pieces.length)];
  return `k${value}q`;
}

function makeSecrets(random: () => number, echoUrl: string, closedPort: number): Record<string, string> {
  return {
    TOKEN: awkward(random, ANYWHERE, 10, 20),
    BODY: awkward(random, ANYWHERE, 10, 20),
    BASIC: awkward(random, HEADER_SAFE, 10, 20),
    KEYPART: awkward(random, ANYWHERE, 8, 14),
    CHAT_URL: `${echoUrl}/chat/${awkward(random, ANYWHERE, 10, 16)}`,
    CHAT_REFUSE: `${echoUrl}/chat-refuse/${awkward(random, ANYWHERE, 10, 16)}`,
    CHAT_DOWN: `http://127.0.0.1:${closedPort}/services/${awkward(random, ANYWHERE, 10, 16)}`,
    SMTP_PASSWORD: awkward(random, ANYWHERE, 10, 20),
    SUBJECT: awkward(random, ANYWHERE, 10, 20),
    // 4–7 characters: masked where it stands alone.
    SHORT: awkward(random, ANYWHERE, 5, 6),
  };
}

interface Answer {
  status: number;
  text: string;
  data: unknown;
}

async function call(url: string, path: string, input: unknown, kind: 'query' | 'mutation'): Promise<Answer> {
  const response = kind === 'query'
    ? await fetch(`${url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`)
    : await fetch(`${url}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const text = await response.text();
  const parsed = JSON.parse(text) as { result?: { data: unknown } };
  return { status: response.status, text, data: parsed.result?.data };
}

function onceflow(args: string[], serverUrl: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/onceflow.mjs', ...args], { cwd: ROOT, env: { ...process.env, ONCEFLOW_URL: serverUrl }, timeout: 60_000 }, (_error, stdout, stderr) => {
      resolve(`$ onceflow ${args.join(' ')}\n${stdout}${stderr}`);
    });
  });
}

type RunView = { run: { id: string; status: string }; timeline: { type: string }[] };

for (const [index, kind] of testDatabases().entries()) {
  const seed = SEED + index;
  describe(`no secret's value is stored, logged or shown, on ${kind.name} (seed ${seed})`, () => {
    let database: TestDatabase;
    let server: ServerProcess | undefined;
    let echo: EchoReceiver;
    let mail: EchoMailServer;
    let secrets: Record<string, string>;
    const answers: string[] = [];
    const cli: string[] = [];
    const views = new Map<string, RunView>();
    let log = '';
    let columns = '';
    let fileBytes = '';

    const ask = async (path: string, input: unknown, kind: 'query' | 'mutation' = 'query') => {
      const answer = await call(server!.url, path, input, kind);
      answers.push(`${path}: ${answer.text}`);
      return answer;
    };
    const waitSettled = async (runId: string, statuses = ['succeeded', 'failed', 'needs_review']) => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
        const view = (await ask('runs.get', { runId })).data as RunView;
        view.timeline = ((await ask('runs.timeline', { runId, limit: 5000 })).data as { events: RunView['timeline'] }).events;
        views.set(runId, view);
        if (statuses.includes(view.run.status)) return view;
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      throw new Error(`run ${runId} did not settle`);
    };

    beforeAll(async () => {
      database = await kind.create();
      echo = await startEchoReceiver({ slowMs: 1200 });
      mail = await startEchoMailServer();
      const closedPort = await freePort();
      secrets = makeSecrets(seededRandom(seed), echo.url, closedPort);
      server = await startServerProcess({ DATABASE_URL: database.url, ONCEFLOW_LOG_LEVEL: 'debug' });
      for (const [name, value] of Object.entries(secrets)) {
        expect((await call(server.url, 'secrets.set', { name, value }, 'mutation')).status).toBe(200);
      }
      const flows = maskingFlows({ echoUrl: echo.url, closedPort, mail });
      const ids: Record<string, string> = {};
      for (const [name, document] of Object.entries(flows)) {
        ids[name] = ((await ask('flows.import', { document }, 'mutation')).data as { id: string }).id;
      }
      const start = async (flow: string, input: Record<string, unknown>) =>
        ((await ask('runs.start', { flowId: ids[flow], input }, 'mutation')).data as { runId: string }).runId;

      const runs = {
        ok: await start('http', { mode: 'ok', ref: 'r-ok', amount: 1 }),
        text: await start('http', { mode: 'text', ref: 'r-text', amount: 1 }),
        refused: await start('http', { mode: 'refuse', ref: 'r-refuse', amount: 1 }),
        failedSkip: await start('http', { mode: 'fail', ref: 'r-skip', amount: 1 }),
        slowHappened: await start('http', { mode: 'slow', ref: 'r-slow', amount: 1 }),
        flakyDoIt: await start('http', { mode: 'flaky', ref: 'r-flaky', amount: 1 }),
        honoured: await start('honoured', { ref: 'r-honoured', amount: 1 }),
        unreachable: await start('unreachable', { ref: 'r-down', amount: 1 }),
        chat: await start('chat', { ref: 'c-ok' }),
        chatRefused: await start('chatRefused', { ref: 'c-refuse' }),
        chatDown: await start('chatDown', { ref: 'c-down' }),
        mailed: await start('email', { ref: 'm-ok', user: 'ann', to: 'ann@example.test' }),
        mailRefused: await start('email', { ref: 'm-refuse', user: 'ann', to: 'refuse@example.test' }),
        mailLater: await start('email', { ref: 'm-later', user: 'ann', to: 'later@example.test' }),
        mailDropped: await start('email', { ref: 'm-drop', user: 'ann', to: 'drop@example.test' }),
        mailWrongUser: await start('email', { ref: 'm-auth', user: 'wrong', to: 'ann@example.test' }),
      };
      for (const runId of Object.values(runs)) await waitSettled(runId);
      // Same key: one more run acts as a duplicate, one with another amount is a key conflict.
      const duplicate = await start('http', { mode: 'ok', ref: 'r-ok', amount: 1 });
      const conflict = await start('http', { mode: 'ok', ref: 'r-ok', amount: 2 });
      await waitSettled(duplicate);
      await waitSettled(conflict);
      // A sender that echoes a token back in its webhook, as text, JSON-escaped and in base64.
      const hook = ((await ask('flows.get', { id: ids.webhook })).data as { triggers: { hookId: string }[] }).triggers[0]!.hookId;
      const delivered = await postJson(`${server.url}/hooks/${hook}`, { id: 'evt-1', token: secrets.TOKEN, nested: JSON.stringify({ token: secrets.TOKEN }), basic: Buffer.from(`ann:${secrets.BASIC}`).toString('base64') });
      expect(delivered.status).toBe(202);
      await waitSettled(String(delivered.body.runId));

      for (const [runId, decision] of [[runs.failedSkip, 'skip'], [runs.slowHappened, 'happened'], [runs.flakyDoIt, 'do-it'], [runs.mailDropped, 'happened']] as const) {
        expect(views.get(runId)?.run.status).toBe('needs_review');
        const nodeId = runId === runs.mailDropped ? 'mail' : 'call';
        expect((await ask('runs.resolve', { runId, nodeId, decision }, 'mutation')).status).toBe(200);
        await waitSettled(runId, ['succeeded', 'failed']);
      }

      const all = [...views.keys()];
      await ask('runs.list', {});
      for (const runId of all) await ask('runs.timeline', { runId });
      await ask('events.list', { flowId: ids.webhook });
      for (const id of Object.values(ids)) await ask('flows.export', { id });
      await ask('secrets.list', undefined);
      // A value typed where a name goes: the refusal quotes it, and is masked too.
      expect((await ask('secrets.set', { name: secrets.BODY, value: 'some-value' }, 'mutation')).status).toBe(400);
      const shown = [runs.refused, runs.unreachable, runs.chatDown, runs.mailWrongUser, conflict, runs.flakyDoIt];
      cli.push(...(await Promise.all([
        onceflow(['runs', 'list', '--json'], server.url),
        onceflow(['runs', 'list'], server.url),
        onceflow(['events', 'list', ids.webhook!, '--json'], server.url),
        onceflow(['export', ids.http!], server.url),
      ])));
      cli.push(...(await Promise.all(shown.map((runId, i) => onceflow(['runs', 'show', runId, ...(i % 2 ? ['--json'] : [])], server!.url)))));

      server.signal('SIGTERM');
      await server.exited;
      log = server.output();
      server = undefined;

      const db = await openDatabase(database.url);
      const tables = db.dialect === 'sqlite'
        ? await db.all<{ table_name: string; column_name: string }>(`SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`)
        : await db.all<{ table_name: string; column_name: string }>(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`);
      const texts: string[] = [];
      for (const { table_name: table, column_name: column } of tables) {
        const rows = await db.all<{ v: string | null }>(`SELECT CAST("${column}" AS TEXT) AS v FROM "${table}"`);
        for (const row of rows) if (row.v) texts.push(`${table}.${column}: ${row.v}`);
      }
      columns = texts.join('\n');
      await db.close();
      if (kind.name === 'sqlite') {
        const file = database.url.replace(/^file:/, '');
        fileBytes = [file, `${file}-wal`, `${file}-shm`].filter(existsSync).map((path) => readFileSync(path).toString('utf8')).join('\n');
      }
    }, 150_000);

    afterAll(async () => {
      await server?.kill();
      await echo?.close();
      await mail?.close();
      await database?.drop();
    });

    it('ran every outcome, and the receivers really got the values', () => {
      const statuses = [...views.values()].map((view) => view.run.status);
      expect(statuses.filter((status) => status === 'succeeded').length).toBeGreaterThanOrEqual(9);
      expect(statuses.filter((status) => status === 'failed').length).toBeGreaterThanOrEqual(8);
      const events = [...views.values()].flatMap((view) => view.timeline.map((event) => event.type));
      for (const type of ['step.duplicate', 'step.key_conflict', 'step.uncertain', 'step.resolved', 'step.failed']) expect(events).toContain(type);
      expect(mail.accepted.length).toBeGreaterThanOrEqual(1);
      expect(mail.accepted[0]).toContain(secrets.SUBJECT);
      expect(echo.calls).toBeGreaterThanOrEqual(10);
      // The values were shown masked, not dropped: people still see where a secret was.
      expect(answers.join('\n')).toContain(SECRET_MASK);
    });

    it('stores none in any text column of any table', () => {
      expect(columns).toContain(SECRET_MASK);
      expect(findLeaks('column', columns, secrets)).toEqual([]);
    });

    it('leaves none in the SQLite file or its WAL, read as bytes', () => {
      if (kind.name !== 'sqlite') return;
      expect(fileBytes.length).toBeGreaterThan(0);
      expect(findLeaks('file', fileBytes, secrets)).toEqual([]);
    });

    it('writes none to the debug log', () => {
      expect(findLeaks('log', log, secrets)).toEqual([]);
    });

    it('shows none in tRPC answers, exports included', () => {
      expect(findLeaks('answer', answers.join('\n'), secrets)).toEqual([]);
    });

    it('prints none in the CLI', () => {
      expect(cli.join('\n')).toContain(SECRET_MASK);
      expect(findLeaks('cli', cli.join('\n'), secrets)).toEqual([]);
    });
  });
}
