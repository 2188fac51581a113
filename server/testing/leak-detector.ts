/**
 * Looks for secrets' values in any text (an answer, a log, a database file read as
 * bytes), in every form someone could still read them from: as typed, JSON-escaped up
 * to three times, percent- or form-encoded, as a URL parser writes them, HTML-escaped,
 * as UTF-8 misread as Latin-1, in base64 (also inside a longer base64 text such as HTTP Basic credentials), in hex. Written
 * apart from the masker, so a form the masker forgot is still found here.
 */

function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string' && value.length > 0))];
}

function tryOr(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

const escapeJson = (text: string) => JSON.stringify(text).slice(1, -1);
const asciiJson = (text: string) => escapeJson(text).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The forms, each with a name for the report. */
export function readableForms(value: string): { form: string; name: string }[] {
  const named: [string, string | undefined][] = [
    ['as typed', value],
    ['JSON-escaped', escapeJson(value)],
    ['JSON-escaped twice', escapeJson(escapeJson(value))],
    ['JSON-escaped three times', escapeJson(escapeJson(escapeJson(value)))],
    ['JSON-escaped as ASCII', asciiJson(value)],
    ['percent-encoded', tryOr(() => encodeURIComponent(value))],
    ['percent-encoded, lower case', tryOr(() => encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))],
    ['form-encoded', new URLSearchParams([['', value]]).toString().slice(1)],
    ['in a parsed URL query', tryOr(() => new URL(`http://h/?${value}`).href.slice('http://h/?'.length))],
    ['as UTF-8 read as Latin-1', Buffer.from(value, 'utf8').toString('latin1')],
    ['HTML-escaped', value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')],
    ['base64', Buffer.from(value).toString('base64').replace(/=+$/, '')],
    ['base64url', Buffer.from(value).toString('base64url')],
    // SQLite's full-text terms of searchable values are hex (store/input-values.ts).
    ['hex', Buffer.from(value).toString('hex')],
    ['hex, upper case', Buffer.from(value).toString('hex').toUpperCase()],
  ];
  if (/^https?:\/\//.test(value) && URL.canParse(value)) {
    const url = new URL(value);
    named.push(['the address path', `${url.pathname}${url.search}`], ['the address path, escaped', escapeJson(`${url.pathname}${url.search}`)]);
  }
  const seen = new Set<string>();
  return named
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].length > 0)
    .filter(([, form]) => !seen.has(form) && Boolean(seen.add(form)))
    .map(([name, form]) => ({ name, form }));
}

/** Every place where a value can still be read, as sentences naming the secret and the form. */
export function findLeaks(where: string, text: string, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  const near = (index: number, length: number) => JSON.stringify(text.slice(Math.max(0, index - 60), index + length + 60));
  for (const [name, value] of Object.entries(secrets)) {
    for (const { form, name: formName } of readableForms(value)) {
      const index = text.indexOf(form);
      if (index !== -1) found.push(`${where}: ${name} ${formName} near ${near(index, form.length)}`);
    }
    const inner = unique([value, escapeJson(value)]);
    for (const match of text.matchAll(/[A-Za-z0-9+/_-]{8,}={0,2}/g)) {
      for (let offset = 0; offset < 4; offset++) {
        const decoded = Buffer.from(match[0].slice(offset), 'base64').toString('utf8');
        if (inner.some((form) => decoded.includes(form))) {
          found.push(`${where}: ${name} inside base64 near ${near(match.index, match[0].length)}`);
          break;
        }
      }
    }
  }
  return found;
}
