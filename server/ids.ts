import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijkmnpqrstuvwxyz';
/** 34^9 milliseconds reach past the year 3800. */
const TIME_DIGITS = 9;
const RANDOM_DIGITS = 7;

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

/**
 * Short, readable ids with a prefix saying what they name (`flow_…`, `run_…`): the time in
 * milliseconds (9 characters) then 7 random ones. Time first keeps rows written together
 * next to each other in every index keyed by id, so a commit dirties one b-tree page
 * where random ids dirtied one page per row; the alphabet is in ASCII order, so ids sort
 * by creation time. Nothing secret is named this way (webhook ids are below).
 */
export function newId(prefix: string): string {
  let time = '';
  for (let rest = Date.now(), i = 0; i < TIME_DIGITS; i++, rest = Math.floor(rest / ALPHABET.length)) {
    time = ALPHABET[rest % ALPHABET.length] + time;
  }
  let random = '';
  for (const byte of take(RANDOM_DIGITS)) random += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${time}${random}`;
}

/** Webhook ids must be unguessable: 24 random bytes straight from the kernel. */
export function newHookId(): string {
  return randomBytes(24).toString('base64url');
}
