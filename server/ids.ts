import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijkmnpqrstuvwxyz';

// One system call fills many ids: asking the kernel for 16 bytes per id cost more than
// the rest of a webhook's ingestion.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function take(count: number): Buffer {
  if (offset + count > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + count);
  offset += count;
  return bytes;
}

/** Short, readable, random ids with a prefix saying what they name (`flow_…`, `run_…`). */
export function newId(prefix: string, length = 16): string {
  const bytes = take(length);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${id}`;
}

/** Webhook ids must be unguessable: 24 random bytes straight from the kernel. */
export function newHookId(): string {
  return randomBytes(24).toString('base64url');
}
