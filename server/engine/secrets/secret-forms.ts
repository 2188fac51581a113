/**
 * The forms a secret's value takes in text that travelled out and came back:
 * - as typed;
 * - JSON-escaped: once, twice (a JSON text kept inside a JSON column) and three times (an
 *   answer holding such a text), with the variants other serializers write (`\u00fc`,
 *   `\u00FC`, `\/`, Go's `\u003c`);
 * - URL-encoded: percent-encoding in upper and lower case, form encoding with `+`, what a
 *   URL parser writes back for a query or a path, and the header form of a key;
 * - HTML-escaped;
 * - UTF-8 bytes read as Latin-1;
 * - base64 and base64url.
 * A secret that is itself a web address also hides its path and query, where the token
 * of a chat webhook sits.
 *
 * Every form stands for the whole value (a form that a URL parser cut short is left out),
 * so masking a form never hides a shorter, innocent piece of text.
 */

export interface SecretForms {
  /** Found as they are in text. */
  text: string[];
  /** base64 and base64url of the value (unpadded); a match hides the whole base64 run around it. */
  base64: string[];
}

/** Address parts shorter than this are too common to hide on their own (e.g. `/` or `/api`). */
const MIN_ADDRESS_PART = 8;

export function secretForms(value: string): SecretForms {
  // UTF-8 read as Latin-1: how a mail server's UTF-8 reply reaches nodemailer, for one.
  const misread = Buffer.from(value, 'utf8').toString('latin1');
  const plain = unique([value, misread, ...urlForms(value), ...addressParts(value)]);
  const escaped = plain.flatMap(jsonForms);
  const twice = escaped.map(jsonEscape);
  // A body echoed as text inside a JSON answer, kept inside a JSON column: three levels.
  const thrice = twice.slice(0, 2).map(jsonEscape);
  const html = plain.flatMap(htmlForms);
  const bytes = Buffer.from(value, 'utf8');
  return {
    text: unique([...plain, ...escaped, ...twice, ...thrice, ...html]).filter((form) => form.length > 0),
    base64: unique([bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')]),
  };
}

function unique(forms: (string | undefined)[]): string[] {
  return [...new Set(forms.filter((form): form is string => typeof form === 'string'))];
}

function attempt(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    // A lone surrogate cannot be percent-encoded; that form simply does not exist.
    return undefined;
  }
}

function urlForms(value: string): string[] {
  const component = attempt(() => encodeURIComponent(value));
  const candidates = [
    component,
    component?.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    component?.replace(/%20/g, '+'),
    attempt(() => new URLSearchParams([['', value]]).toString().slice(1)),
    attempt(() => encodeURI(value)),
    percentOutsideVisibleAscii(value),
    // What a URL parser writes back (href): as a query, and as a path.
    attempt(() => new URL(`http://h/?${value}`).href.slice('http://h/?'.length)),
    attempt(() => new URL(`http://h/${value}`).href.slice('http://h/'.length)),
  ];
  // Encoding only lengthens a text (a URL parser drops tabs and line breaks); a shorter
  // form was cut, at a `#` or by `..`, and would hide less than the whole value.
  const whole = value.replace(/[\t\n\r]/g, '').length;
  return unique(candidates).filter((form) => form !== value && form.length >= whole);
}

/** Only bytes outside visible ASCII (and `%`) as %XX: how a key travels in a header (http-headers.ts). */
function percentOutsideVisibleAscii(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    out += byte > 0x20 && byte < 0x7f && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function addressParts(value: string): string[] {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return [];
  const url = new URL(value);
  const rest = `${url.pathname}${url.search}${url.hash}`;
  return unique([url.href, url.password, rest, `${url.pathname}${url.search}`]).filter(
    (part) => part.length >= MIN_ADDRESS_PART,
  );
}

export function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

const hex4 = (char: string) => char.charCodeAt(0).toString(16).padStart(4, '0');

function jsonForms(text: string): string[] {
  const json = jsonEscape(text);
  const ascii = json.replace(/[\u0080-\uffff]/g, (char) => `\\u${hex4(char)}`);
  const asciiUpper = json.replace(/[\u0080-\uffff]/g, (char) => `\\u${hex4(char).toUpperCase()}`);
  // Go's encoding/json also escapes <, > and & (and U+2028/2029).
  const go = json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${hex4(char)}`);
  const slashed = [json, ascii, go].map((form) => form.replace(/\//g, '\\/'));
  return unique([json, ascii, asciiUpper, go, ...slashed]).filter((form) => form !== text);
}

function htmlForms(text: string): string[] {
  const escape = (quote: string, apostrophe: string) =>
    text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quote, "'": apostrophe })[char] ?? char);
  return unique([escape('&quot;', '&#39;'), escape('&#34;', '&#x27;')]).filter((form) => form !== text);
}
