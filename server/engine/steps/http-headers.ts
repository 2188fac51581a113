/**
 * Headers of the HTTP-based steps: the form in which a key travels, and the check that
 * every header can be sent at all, made before anything is claimed or sent.
 *
 * A header carries printable ASCII safely; anything else is refused by the HTTP library
 * (€, emoji) or read differently by each receiver (ü). A key that a header cannot carry
 * as it is travels in one documented form:
 *
 *   every UTF-8 byte outside visible ASCII (0x21–0x7E), and every "%", becomes %XX with
 *   uppercase hex; e.g. "Bestellung-Ü-4417-€" → "Bestellung-%C3%9C-4417-%E2%82%AC".
 *
 * A key is sent as it is when it is printable ASCII without "%" and without a space at
 * either end (receivers drop those); every other key is encoded. The form is one-to-one:
 * a key sent as it is never contains "%", an encoded one always does, and percent-decoding
 * (decodeURIComponent) gives the key back. The value sent is shown in the step's output
 * as `sentKeyHeader` whenever it differs from the key.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { NonRetriableError } from '../errors.ts';

const AS_IS = /^(?! )[\x20-\x24\x26-\x7e]*(?<! )$/;

/** The header value that carries `key` (see above). */
export function keyHeaderValue(key: string): string {
  if (AS_IS.test(key)) return key;
  let encoded = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    encoded += byte > 0x20 && byte < 0x7f && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

const BAD_NAME = 'header names may not contain spaces, colons, quotes or letters outside A–Z';
const BAD_VALUE = 'its value is missing or contains a line break, a control character, or a character such as € or an emoji that headers cannot carry';

/** Why a header cannot be sent, in plain words; undefined when it can. */
export function headerProblem(name: string, value: unknown): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return `The header name "${name}" cannot be sent: ${BAD_NAME}. Correct the name in the step.`;
  }
  try {
    validateHeaderValue(name, value as string);
  } catch {
    return `The header "${name}" cannot be sent: ${BAD_VALUE}. Remove that from the header (the body can carry any text).`;
  }
  return undefined;
}

/** Refuses, before anything is claimed, headers that no request could carry. */
export function checkHeaders(headers: Record<string, unknown>, keyHeader: string | undefined): void {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerProblem(name, value);
    if (problem) throw new NonRetriableError(`${problem} Nothing was sent.`);
  }
  if (keyHeader !== undefined && headerProblem(keyHeader, 'key') !== undefined) {
    throw new NonRetriableError(`The key header name "${keyHeader}" cannot be sent: ${BAD_NAME}. Correct it in the step. Nothing was sent.`);
  }
}
