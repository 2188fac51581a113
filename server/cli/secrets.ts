/**
 * `onceflow secrets set NAME [VALUE|-]`, `secrets list [--json]`, `secrets delete NAME`.
 * A value is never printed. Without a value (or with `-`) it is read from standard input:
 * typed with the echo off at a terminal, or piped in, minus one trailing newline — the
 * way to keep it out of shell history and the process list.
 */
import { UserError } from '../engine/errors.ts';
import type { Client } from './client.ts';
import { usageOf, type HelpLine } from './help.ts';

export interface SecretsIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  /** A line of the command's result (stdout). */
  print(line: string): void;
  /** A prompt for the person at the terminal (stderr, no newline added). */
  prompt(text: string): void;
}

const processIo: SecretsIo = {
  stdin: process.stdin,
  print: (line) => console.log(line),
  prompt: (text) => void process.stderr.write(text),
};

/** The secrets' lines of `onceflow --help`: one per action this file dispatches. */
export const SECRETS_HELP: HelpLine[] = [
  ['secrets set NAME [VALUE|-]', 'store a secret (no value or -: read it from standard input)'],
  ['secrets list [--json]', 'the names and when each was last changed, never the values'],
  ['secrets delete NAME', 'delete a secret'],
];

export const SECRETS_USAGE = usageOf(SECRETS_HELP);

export async function secretsCommand(client: Client, args: string[], io: SecretsIo = processIo): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'set': {
      const [name, given, ...extra] = rest;
      if (!name) throw new UserError(`Name the secret to set: onceflow secrets set NAME [VALUE|-].`);
      if (extra.length > 0) throw new UserError('A secret takes one value; put a value with spaces in quotes, or pipe it in with -.');
      const value = given === undefined || given === '-' ? await readValue(name, io) : given;
      if (value === '') {
        throw new UserError(`No value was given for ${name}. Pass it after the name, or pipe it in: printf %s "$VALUE" | onceflow secrets set ${name} -`);
      }
      await client.secrets.set.mutate({ name, value });
      io.print(`Secret ${name} saved. Use it as {{ secrets.${name} }}.`);
      return;
    }
    case 'list': {
      const secrets = await client.secrets.list.query();
      if (rest.includes('--json')) {
        io.print(JSON.stringify(secrets, null, 2));
        return;
      }
      if (secrets.length === 0) {
        io.print('No secrets yet. Add one with: onceflow secrets set NAME');
        return;
      }
      for (const secret of secrets) io.print(`${secret.name}\tchanged ${new Date(secret.updatedAt).toISOString()}`);
      return;
    }
    case 'delete': {
      const [name] = rest;
      if (!name) throw new UserError('Name the secret to delete: onceflow secrets delete NAME.');
      const { deleted } = await client.secrets.delete.mutate({ name });
      if (!deleted) throw new UserError(`No secret named ${name} is stored; \`onceflow secrets list\` shows the names.`);
      io.print(`Secret ${name} deleted. Flows that use {{ secrets.${name} }} will fail until it is set again.`);
      return;
    }
    default:
      throw new UserError(`Did you mean one of these?\n  ${SECRETS_USAGE}`);
  }
}

async function readValue(name: string, io: SecretsIo): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) return readHidden(name, io);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  // Only one newline goes: `echo` adds it, while a value may itself end in whitespace.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Reads one line at a terminal with the echo off; Ctrl-C cancels, Enter or Ctrl-D ends. */
function readHidden(name: string, io: SecretsIo): Promise<string> {
  const stdin = io.stdin;
  io.prompt(`Value for ${name} (typing is hidden): `);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.prompt('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\u0003') return finish(new UserError('Cancelled; nothing was saved.'));
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else value += char;
      }
    };
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
