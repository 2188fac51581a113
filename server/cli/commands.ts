/**
 * Every `onceflow` command, in one table: dispatch reads it and `onceflow --help` is made
 * from it, so a command cannot exist without its help line. Commands with actions of their
 * own (sandbox, secrets) list them in their files, beside the code that dispatches them.
 */
import { parseArgs } from 'node:util';
import { UserError } from '../engine/errors.ts';
import { createClient, serverUrl } from './client.ts';
import { eventsCommand } from './events.ts';
import { pauseFlowCommand, resumeFlowCommand } from './flow-pause.ts';
import { exportFlow, importAsNextVersion, importFlow, listFlows } from './flows.ts';
import { formatHelp, type HelpLine } from './help.ts';
import { login } from './login.ts';
import { proveCommand } from './prove.ts';
import { recoverCommand, showOperationCommand } from './recover.ts';
import { cancelCommand } from './run-cancel.ts';
import { listRunsCommand, parseInput, replayCommand, rerunCommand, resolveCommand, showRun, startRun } from './runs.ts';
import { SANDBOX_HELP, sandboxCommand } from './sandbox.ts';
import { SECRETS_HELP, secretsCommand } from './secrets.ts';
import { runMigrate, start, worker } from './server-commands.ts';
import { statusCommand } from './status.ts';

type FlagName = 'test' | 'real-services' | 'tests' | 'yes' | 'replay';
type OptionName = 'version' | 'input' | 'status' | 'flow' | 'sample' | 'key' | 'failed-step' | 'from' | 'to' | 'name' | 'trigger';

interface Invocation {
  /** Everything after the command's name, as typed. */
  rest: string[];
  positionals: string[];
  json: boolean;
  wait: boolean;
  option(name: OptionName): string | undefined;
  flag(name: FlagName): boolean;
}

interface Command {
  name: string;
  help: HelpLine[];
  /** The exit code (0 unless the command says otherwise). */
  run(invocation: Invocation): Promise<number | void>;
}

function need(value: string | undefined, usage: string): string {
  if (!value) throw new UserError(/[.?]$/.test(usage) ? usage : `Missing argument: ${usage}`);
  return value;
}

export const COMMANDS: Command[] = [
  {
    name: 'start',
    help: [['start [--no-worker]', 'run the server (and its worker) on PORT, HOST']],
    run: ({ rest }) => start(rest),
  },
  {
    name: 'worker',
    help: [['worker [--concurrency N] [--metrics-port N]', 'run a worker only (several may share one PostgreSQL database); --metrics-port serves its /metrics']],
    run: ({ rest }) => worker(rest),
  },
  {
    name: 'migrate',
    help: [['migrate', 'apply database migrations and exit']],
    run: () => runMigrate(),
  },
  {
    name: 'import',
    help: [
      ['import <file> [--json]', 'import a flow document; prints its id and webhook URLs'],
      ['import <file> --flow <flowId> [--yes] [--json]', 'publish the file as the next version of an existing flow (--yes confirms changed keys)'],
    ],
    run: ({ positionals, option, rest, json }) => {
      const file = need(positionals[0], 'Name the flow file to import: onceflow import <file>.');
      const flowId = option('flow');
      return flowId ? importAsNextVersion(createClient(), file, flowId, json, rest.includes('--yes')) : importFlow(createClient(), file, json);
    },
  },
  {
    name: 'export',
    help: [['export <flowId> [--version N]', 'print a flow document (the latest version, or N)']],
    run: ({ positionals, option }) => {
      const version = option('version');
      return exportFlow(createClient(), need(positionals[0], 'Name the flow to export: onceflow export <flowId>.'), version ? Number(version) : undefined);
    },
  },
  {
    name: 'flows',
    help: [
      ['flows list [--json]', 'every flow with its latest version'],
      ['flows pause <flowId> [--json]', 'hold the flow\'s new runs (webhooks are still recorded) until resumed'],
      ['flows resume <flowId> [--drop-missed-fires] [--json]', 'run the held runs in arrival order (optionally dropping missed schedule fires)'],
    ],
    run: ({ positionals, rest, json }) => {
      if (positionals[0] === 'pause') return pauseFlowCommand(createClient(), need(positionals[1], 'Name the flow to pause: onceflow flows pause <flowId>.'), json);
      if (positionals[0] === 'resume') {
        const flowId = need(positionals[1], 'Name the flow to resume: onceflow flows resume <flowId>.');
        return resumeFlowCommand(createClient(), flowId, { dropMissedFires: rest.includes('--drop-missed-fires'), json });
      }
      if (positionals[0] !== 'list') throw new UserError('Did you mean `onceflow flows list`, `flows pause <flowId>` or `flows resume <flowId>`?');
      return listFlows(createClient(), json);
    },
  },
  {
    name: 'run',
    help: [
      ['run <flowId> [--input JSON|@file] [--wait] [--json]', 'start a run; --wait exits 0 succeeded, 2 failed, 3 needs review, 4 cancelled'],
      ['run <flowId> --test [--real-services] [--input …] [--wait]', 'test the draft: keys apart from live ones, side effects to the stand-ins (or, with --real-services, to the real ones)'],
    ],
    run: ({ positionals, option, flag, wait, json }) =>
      startRun(createClient(), need(positionals[0], 'onceflow run <flowId> [--input JSON|@file] [--wait]'), parseInput(option('input')), {
        wait, json, test: flag('test'), realServices: flag('real-services'),
      }),
  },
  {
    name: 'runs',
    help: [
      ['runs list [flowId] [--status S] [--tests] [--json]', 'recent runs, newest first (test runs only with --tests)'],
      ['runs list [--key K] [--input path=value] [--failed-step S]', 'runs that used a key (any scope), whose input holds a value (order.id=4417), or that failed at a step (name or id)'],
      ['runs show <runId> [--json]', 'a run: its steps, keys and timeline'],
      ['runs cancel <runId> [--json]', 'cancel a run and the child runs it started; a step already acting finishes and is recorded, nothing new starts'],
    ],
    run: ({ positionals, option, flag, json }) => {
      if (positionals[0] === 'list') {
        return listRunsCommand(createClient(), positionals[1], option('status'), json, flag('tests'), {
          key: option('key'), input: option('input'), failedStep: option('failed-step'),
        });
      }
      if (positionals[0] === 'show') return showRun(createClient(), need(positionals[1], 'onceflow runs show <runId>'), json);
      if (positionals[0] === 'cancel') return cancelCommand(createClient(), need(positionals[1], 'Name the run to cancel: onceflow runs cancel <runId>.'), json);
      throw new UserError('Did you mean `onceflow runs list [flowId]`, `onceflow runs show <runId>` or `onceflow runs cancel <runId>`?');
    },
  },
  {
    name: 'rerun',
    help: [['rerun <runId> [--version latest|original] [--wait] [--json]', 'resume a failed run from its checkpoints, on the latest version (default) or the one it ran']],
    run: ({ positionals, option, wait, json }) =>
      rerunCommand(createClient(), need(positionals[0], 'onceflow rerun <runId> [--version latest|original] [--wait]'), { wait, json, version: option('version') }),
  },
  {
    name: 'replay',
    help: [['replay <runId> [--version latest|original] [--input JSON|@file|-] [--wait] [--json]', 'a new run with the same input (or the one given); work already done stops as a duplicate']],
    run: ({ positionals, option, wait, json }) =>
      replayCommand(createClient(), need(positionals[0], 'onceflow replay <runId> [--version latest|original] [--input JSON|-]'), { wait, json, version: option('version'), input: option('input') }),
  },
  {
    name: 'resolve',
    help: [['resolve <runId> <nodeId> happened|do-it|skip', 'decide a step whose outcome is unknown']],
    run: ({ positionals }) => resolveCommand(createClient(),
      need(positionals[0], 'onceflow resolve <runId> <nodeId> happened|do-it|skip'), need(positionals[1], 'the step id'), need(positionals[2], 'happened, do-it or skip')),
  },
  {
    name: 'prove',
    help: [['prove <flowId> [--sample NAME] [--json]', 'prove the draft is safe to repeat: twice, ten at once, stopped hard, a webhook sent again, its keys; exits 0 when every check passes, 1 otherwise']],
    run: ({ positionals, option, json }) =>
      proveCommand(createClient(), need(positionals[0], 'Name the flow to prove: onceflow prove <flowId>.'), { json, sample: option('sample'), serverUrl: serverUrl() }),
  },
  {
    name: 'recover',
    help: [['recover [--flow <flowId>] [--from <time>] [--to <time>] [--status failed,needs_review,cancelled,succeeded] [--trigger manual,webhook,schedule] [--replay] [--version latest|original] [--name …] [--yes] [--json]',
      'rerun (or replay) every run in a time window as one operation: shows the summed preview, starts with --yes; times are ISO or how long ago (6h, 2d)']],
    run: ({ option, flag, json }) => recoverCommand(createClient(), {
      flow: option('flow'), from: option('from'), to: option('to'), status: option('status'), trigger: option('trigger'), version: option('version'),
      name: option('name'), replay: flag('replay'), yes: flag('yes'), json,
    }),
  },
  {
    name: 'operations',
    help: [['operations show <operationId> [--json]', 'a recovery\'s progress and report: what was asked, runs, effects per step, uncertain steps, expired keys']],
    run: ({ positionals, json }) => {
      if (positionals[0] !== 'show') throw new UserError('Did you mean `onceflow operations show <operationId>`?');
      return showOperationCommand(createClient(), need(positionals[1], 'Name the operation: onceflow operations show <operationId>.'), json);
    },
  },
  {
    name: 'events',
    help: [
      ['events list <flowId> [--json]', 'the webhook inbox: deliveries, repeats, refusals'],
      ['events replay <deliveryId> [--version latest|original] [--input JSON|@file|-] [--wait] [--json]', 'run a delivery again as a replay (or with the body given); work already done stops as a duplicate'],
    ],
    run: ({ positionals, option, wait, json }) => eventsCommand(createClient(), positionals, { json, wait, version: option('version'), input: option('input') }),
  },
  {
    name: 'secrets',
    help: SECRETS_HELP,
    run: ({ rest }) => secretsCommand(createClient(), rest),
  },
  {
    name: 'sandbox',
    help: SANDBOX_HELP,
    run: ({ rest }) => sandboxCommand(createClient(), rest),
  },
  {
    name: 'status',
    help: [['status [--json]', 'workers seen, queue depth, oldest queued run']],
    run: ({ json }) => statusCommand(createClient(), json),
  },
  {
    name: 'login',
    help: [['login', 'trade the admin password for a token (or set ONCEFLOW_TOKEN)']],
    run: () => login(serverUrl()),
  },
  {
    name: 'help',
    help: [['help, --help', 'this list']],
    run: async () => console.log(usage()),
  },
];

export function usage(): string {
  return `Usage: onceflow <command>\n\n${formatHelp(COMMANDS.flatMap((command) => command.help))}\n\nCommands other than start, worker and migrate talk to the server at ONCEFLOW_URL (default http://127.0.0.1:3000).`;
}

/** Runs `onceflow <argv>` and gives the exit code. */
export async function runCommand(argv: string[]): Promise<number> {
  const [name = 'help', ...rest] = argv;
  const command = COMMANDS.find((candidate) => candidate.name === (name === '--help' || name === '-h' ? 'help' : name));
  if (!command) throw new UserError(`Unknown command "${name}".\n${usage()}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: false,
    options: {
      json: { type: 'boolean' }, version: { type: 'string' }, input: { type: 'string' },
      wait: { type: 'boolean' }, status: { type: 'string' }, flow: { type: 'string' }, sample: { type: 'string' },
      test: { type: 'boolean' }, 'real-services': { type: 'boolean' }, tests: { type: 'boolean' },
      key: { type: 'string' }, 'failed-step': { type: 'string' },
      from: { type: 'string' }, to: { type: 'string' }, name: { type: 'string' }, trigger: { type: 'string' }, yes: { type: 'boolean' }, replay: { type: 'boolean' },
    },
  });
  const flag = (key: FlagName) => values[key] === true;
  const option = (key: OptionName) => (typeof values[key] === 'string' ? values[key] : undefined);
  const code = await command.run({ rest, positionals, json: values.json === true, wait: values.wait === true, option, flag });
  return code ?? 0;
}
