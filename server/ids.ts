import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijkmnpqrstuvwxyz';

/** Short, readable, random ids with a prefix saying what they name (`flow_…`, `run_…`). */
export function newId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${id}`;
}

/** Webhook ids must be unguessable: 24 random bytes. */
export function newHookId(): string {
  return randomBytes(24).toString('base64url');
}
