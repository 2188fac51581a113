/**
 * `onceflow <command>`. `start` and `migrate` work on the database directly; every other
 * command talks to the running server at ONCEFLOW_URL. Errors end as one sentence and a
 * non-zero exit code.
 */
import { parseArgs } from 'node:util';
import { createServer } from './app.ts';
import { createClient, explainClientError, serverUrl } from './cli/client.ts';
import { login } from './cli/login.ts';
import { statusCommand } from './cli/status.ts';
import { sandboxCommand } from './cli/sandbox.ts';
import { sandboxStartupLine } from './sandbox/directory.ts';
import { eventsCommand } from './cli/events.ts';
import { secretsCommand } from './cli/secrets.ts';
import { exportFlow, importFlow, listFlows } from './cli/flows.ts';
import { listRunsCommand, parseInput, rerunCommand, resolveCommand, showRun, startRun } from './cli/runs.ts';
import { UserError } from './engine/errors.ts';
import { readEnv } from './env.ts';
import { createServices } from './services.ts';
import { openDatabase } from './engine/database.ts';
import { migrate } from './store/migrate.ts';

const USAGE = `Usage: onceflow <command>

  start [--no-worker]          run the server (and its worker) on PORT, HOST
  worker [--concurrency N]     run a worker only (several may share one PostgreSQL database)
  migrate                      apply database migrations and exit
  import <file> [--json]       import a flow document; prints its id and webhook URLs
  export <flowId> [--version N]
  flows list [--json]
  run <flowId> [--input JSON|@file] [--wait] [--json]
                               start a run; --wait exits 0 succeeded, 2 failed, 3 needs review, 4 cancelled
  runs list [flowId] [--status S] [--json]
  runs show <runId> [--json]
  rerun <runId> [--wait]       resume a failed run from its checkpoints
  resolve <runId> <nodeId> happened|do-it|skip
  sandbox ledger [--json] | reset
                               what the built-in stand-in receivers got
  status [--json]              workers seen, queue depth, oldest queued run
  login                        trade the admin password for a token (or set ONCEFLOW_TOKEN)
  secrets set NAME [VALUE|-]   store a secret (from standard input with - or no value)
  secrets list | delete NAME
  events list <flowId> [--json]  the webhook inbox: deliveries, repeats, refusals
  events replay <eventId>      run a delivery again as a replay`;

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-worker': { type: 'boolean' } } });
  const env = readEnv();
  const server = await createServer({ env, worker: !values['no-worker'] }).start();
  console.log(`Onceflow is running at ${server.url} (${server.services.db.description})`);
  const { sandbox, publicUrl } = server.services;
  console.log(sandboxStartupLine(sandbox && { baseUrl: publicUrl ?? server.url, smtp: sandbox.smtp }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** A worker process without HTTP: leases runs from the shared database until SIGTERM. */
async function worker(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { concurrency: { type: 'string' } } });
  const env = readEnv();
  const services = await createServices(env);
  const concurrency = values.concurrency ? Number(values.concurrency) : undefined;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0)) {
    throw new UserError('--concurrency takes a whole number above 0.');
  }
  const running = services.startWorker({ concurrency });
  console.log(`Onceflow worker ${running.id} is running on ${services.db.description}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function runMigrate(): Promise<void> {
  const env = readEnv();
  const db = await openDatabase(env.databaseUrl);
  try {
    const applied = await migrate(db);
    console.log(applied.length ? `Applied ${applied.join(', ')} to ${db.description}.` : `${db.description} is up to date.`);
  } finally {
    await db.close();
  }
}

async function setExit(code: Promise<number>): Promise<void> {
  process.exitCode = await code;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: false,
    options: {
      json: { type: 'boolean' }, version: { type: 'string' }, input: { type: 'string' },
      wait: { type: 'boolean' }, status: { type: 'string' },
    },
  });
  const json = values.json === true;
  const wait = values.wait === true;
  const need = (value: string | undefined, usage: string): string => {
    if (!value) throw new UserError(`Missing argument: ${usage}`);
    return value;
  };
  switch (command) {
    case 'start':
      return start(rest);
    case 'worker':
      return worker(rest);
    case 'migrate':
      return runMigrate();
    case 'import':
      if (!positionals[0]) throw new UserError('Name the flow file to import: onceflow import <file>.');
      return importFlow(createClient(), positionals[0], json);
    case 'export':
      if (!positionals[0]) throw new UserError('Name the flow to export: onceflow export <flowId>.');
      return exportFlow(createClient(), positionals[0], values.version ? Number(values.version) : undefined);
    case 'flows':
      if (positionals[0] !== 'list') throw new UserError('Did you mean `onceflow flows list`?');
      return listFlows(createClient(), json);
    case 'run':
      return setExit(startRun(createClient(), need(positionals[0], 'onceflow run <flowId> [--input JSON|@file] [--wait]'), parseInput(values.input as string | undefined), { wait, json }));
    case 'runs':
      if (positionals[0] === 'list') return setExit(listRunsCommand(createClient(), positionals[1], values.status as string | undefined, json));
      if (positionals[0] === 'show') return setExit(showRun(createClient(), need(positionals[1], 'onceflow runs show <runId>'), json));
      throw new UserError('Did you mean `onceflow runs list [flowId]` or `onceflow runs show <runId>`?');
    case 'rerun':
      return setExit(rerunCommand(createClient(), need(positionals[0], 'onceflow rerun <runId> [--wait]'), { wait, json }));
    case 'sandbox':
      return sandboxCommand(createClient(), rest);
    case 'status':
      return setExit(statusCommand(createClient(), json));
    case 'login':
      return setExit(login(serverUrl()));
    case 'secrets':
      return secretsCommand(createClient(), rest);
    case 'events':
      return setExit(eventsCommand(createClient(), positionals, json));
    case 'resolve':
      return setExit(resolveCommand(createClient(), need(positionals[0], 'onceflow resolve <runId> <nodeId> happened|do-it|skip'), need(positionals[1], 'the step id'), need(positionals[2], 'happened, do-it or skip')));
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      throw new UserError(`Unknown command "${command}".\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const explained = explainClientError(error);
  if (explained instanceof UserError) {
    console.error(explained.message);
  } else {
    console.error(`Onceflow stopped because of an unexpected error: ${explained.stack ?? explained.message}`);
  }
  process.exit(1);
});
