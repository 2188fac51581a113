/**
 * `onceflow sandbox ledger [RECEIVER] [--json]` shows what reached the sandbox receivers
 * and how many times each key or reference took effect; `onceflow sandbox reset
 * [RECEIVER]` forgets it (and the keys the payments receiver remembers).
 */
import { UserError } from '../engine/errors.ts';
import { isReceiverName, RECEIVERS, type ReceiverName } from '../sandbox/ledger.ts';
import type { Client } from './client.ts';
import { usageOf, type HelpLine } from './help.ts';

const receivers = RECEIVERS.join('|');

/** The sandbox's lines of `onceflow --help`: one per action this file dispatches. */
export const SANDBOX_HELP: HelpLine[] = [
  [`sandbox ledger [${receivers}] [--json]`, 'what the built-in stand-in receivers got'],
  [`sandbox reset [${receivers}]`, 'forget it (and the keys payments remembers)'],
  [`sandbox set <${receivers}> [--latency MS] [--failure-rate 0..1] [--drop-answer on|off]`, 'make a receiver slow, failing, or act and then drop its answer'],
];

export const SANDBOX_USAGE = usageOf(SANDBOX_HELP);

/** Reads `--name value` pairs of `sandbox set`. */
function settingsArguments(args: string[]): { latencyMs?: number; failureRate?: number; dropAnswer?: boolean } {
  const settings: { latencyMs?: number; failureRate?: number; dropAnswer?: boolean } = {};
  for (let index = 0; index < args.length; index += 2) {
    const [name, value] = [args[index], args[index + 1]];
    if (value === undefined) throw new UserError(`${name} needs a value.\n  ${SANDBOX_USAGE}`);
    if (name === '--latency') settings.latencyMs = Number(value);
    else if (name === '--failure-rate') settings.failureRate = Number(value);
    else if (name === '--drop-answer') {
      if (value !== 'on' && value !== 'off') throw new UserError('--drop-answer is on or off.');
      settings.dropAnswer = value === 'on';
    } else throw new UserError(`Unknown setting ${name}.\n  ${SANDBOX_USAGE}`);
  }
  if (Object.values(settings).some((value) => typeof value === 'number' && Number.isNaN(value))) throw new UserError('Settings take numbers.');
  return settings;
}

export interface SandboxIo {
  print(line: string): void;
}

const processIo: SandboxIo = { print: (line) => console.log(line) };

function times(count: number): string {
  return count === 1 ? 'once' : `${count} times`;
}

function receiverArgument(args: string[]): ReceiverName | undefined {
  const [name, ...extra] = args.filter((arg) => !arg.startsWith('--'));
  if (extra.length > 0) throw new UserError(`Name at most one receiver.\n  ${SANDBOX_USAGE}`);
  if (name === undefined) return undefined;
  if (!isReceiverName(name)) throw new UserError(`The sandbox has no receiver "${name}"; it has ${RECEIVERS.join(', ')}.`);
  return name;
}

export async function sandboxCommand(client: Client, args: string[], io: SandboxIo = processIo): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'ledger': {
      const receiver = receiverArgument(rest);
      const ledger = await client.sandbox.ledger.query({ receiver });
      if (rest.includes('--json')) {
        io.print(JSON.stringify(ledger, null, 2));
        return;
      }
      for (const summary of ledger.receivers) {
        const duplicates = summary.duplicated > 0 ? `, ${summary.duplicated} done more than once` : '';
        io.print(`${summary.receiver}: ${summary.arrivals} arrived, ${summary.effects} took effect${duplicates}`);
        for (const count of summary.references) {
          const flag = count.effects > 1 ? '  <- duplicate' : '';
          io.print(`  ${count.reference}  arrived ${times(count.arrivals)}, took effect ${count.effects === 0 ? 'never' : times(count.effects)}${flag}`);
        }
      }
      if (ledger.smtp) io.print(`The sandbox mail server listens on ${ledger.smtp.host}:${ledger.smtp.port}.`);
      return;
    }
    case 'reset': {
      const receiver = receiverArgument(rest);
      await client.sandbox.reset.mutate({ receiver });
      io.print(receiver ? `The ${receiver} ledger is empty again.` : 'Every sandbox ledger is empty again.');
      return;
    }
    case 'set': {
      const [name, ...pairs] = rest;
      if (!name || !isReceiverName(name)) throw new UserError(`Name a receiver: ${RECEIVERS.join(', ')}.`);
      const { settings } = await client.sandbox.configure.mutate({ receiver: name, ...settingsArguments(pairs) });
      io.print(`${name}: ${JSON.stringify(settings)}`);
      return;
    }
    default:
      throw new UserError(`Did you mean one of these?\n  ${SANDBOX_USAGE}`);
  }
}
