/**
 * `onceflow login`: trades the admin password for a token, kept in
 * ~/.config/onceflow/tokens.json (owner-only) per server address. ONCEFLOW_TOKEN wins over it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UserError } from '../engine/errors.ts';
import { serverMessage } from './client.ts';

const TOKENS = join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'onceflow', 'tokens.json');

function readTokens(): Record<string, string> {
  try {
    return existsSync(TOKENS) ? (JSON.parse(readFileSync(TOKENS, 'utf8')) as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function storedToken(url: string): string | undefined {
  return readTokens()[url];
}

async function readPassword(): Promise<string> {
  if (process.env.ONCEFLOW_ADMIN_PASSWORD) return process.env.ONCEFLOW_ADMIN_PASSWORD;
  process.stderr.write('Admin password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export async function login(url: string): Promise<number> {
  const password = await readPassword();
  let response: Response;
  try {
    response = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password, token: true }) });
  } catch {
    throw new UserError(`Onceflow is not reachable at ${url}; start it with \`npm start\` or set ONCEFLOW_URL.`);
  }
  const body = (await response.json().catch(() => ({}))) as { ok?: boolean; token?: string; error?: unknown; required?: boolean };
  if (!body.ok) {
    // A wrong password is the login's own sentence; any other refusal (an unknown Host, a
    // proxy) is said the way every other command says it.
    throw new UserError(typeof body.error === 'string' ? body.error : serverMessage(response.status, body));
  }
  if (body.required === false) {
    console.log('This server does not ask for a login.');
    return 0;
  }
  mkdirSync(dirname(TOKENS), { recursive: true, mode: 0o700 });
  writeFileSync(TOKENS, JSON.stringify({ ...readTokens(), [url]: body.token }, null, 2), { mode: 0o600 });
  chmodSync(TOKENS, 0o600);
  console.log(`Logged in to ${url}.`);
  return 0;
}
