/**
 * Where a half-typed sample input stops being JSON, as a person finds it in the text box:
 * line and column (both from 1) and what was expected there. The browser's own parser
 * says this differently in each browser and sometimes not at all ("Unexpected end of JSON
 * input"), so the text is read here, once, by a small scanner that only looks for the
 * first mistake.
 */
export interface JsonMistake {
  /** Characters before the mistake, to put the cursor there. */
  offset: number;
  line: number;
  column: number;
  /** What is wrong there, in words: "a comma or a closing } is missing". */
  problem: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The first mistake in `text`, or null when it is JSON (an empty text is no mistake: no sample). */
export function findJsonMistake(text: string): JsonMistake | null {
  if (text.trim() === '') return null;
  let at = 0;
  const seen = () => (at >= text.length ? 'the end of the text' : `“${text.slice(at, at + 12).split(/\s/)[0] || text[at]}”`);
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at += 1;
  };
  const expect = (what: string): never => {
    throw new Stop(at, at >= text.length ? `the text ends where ${what} should come; something is not closed` : `${what} should come before ${seen()}`);
  };

  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return list();
    if (char === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return;
      }
    }
    NUMBER.lastIndex = at;
    if (char !== undefined && /[-\d]/.test(char) && NUMBER.test(text)) {
      at = NUMBER.lastIndex;
      return;
    }
    if (char === "'") throw new Stop(at, 'text must be in double quotes ("…"), not single quotes');
    return expect('a value (text in double quotes, a number, true, false, null, { or [)');
  };

  const object = (): void => {
    at += 1;
    space();
    if (text[at] === '}') {
      at += 1;
      return;
    }
    for (;;) {
      space();
      if (text[at] === '}') throw new Stop(at, 'there is a comma after the last field; remove it');
      if (text[at] !== '"') expect('a field name in double quotes');
      string();
      space();
      if (text[at] !== ':') expect('a colon (:) after the field name');
      at += 1;
      value();
      space();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      if (text[at] !== ',') expect('a comma or a closing }');
      at += 1;
    }
  };

  const list = (): void => {
    at += 1;
    space();
    if (text[at] === ']') {
      at += 1;
      return;
    }
    for (;;) {
      space();
      if (text[at] === ']') throw new Stop(at, 'there is a comma after the last item; remove it');
      value();
      space();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      if (text[at] !== ',') expect('a comma or a closing ]');
      at += 1;
    }
  };

  const string = (): void => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') {
      const char = text[at] as string;
      if (char === '\n' || char < ' ') throw new Stop(start, 'this text has no closing double quote on its line');
      if (char === '\\') {
        const next = text[at + 1] ?? '';
        if (next === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6)) : !ESCAPES.has(next)) {
          throw new Stop(at, 'a backslash (\\) in text must be written twice (\\\\)');
        }
        at += next === 'u' ? 6 : 2;
      } else {
        at += 1;
      }
    }
    if (at >= text.length) throw new Stop(start, 'this text has no closing double quote');
    at += 1;
  };

  try {
    value();
    space();
    if (at < text.length) throw new Stop(at, `the sample already ended; remove ${seen()} and what follows, or wrap everything in one { … }`);
    return null;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    return place(text, error.at, error.problem);
  }
}

function place(text: string, offset: number, problem: string): JsonMistake {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { offset, line, column: offset - before.lastIndexOf('\n'), problem };
}
