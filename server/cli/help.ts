/** The lines of `onceflow --help`: each is what to type (after `onceflow`) and what it does. */
export type HelpLine = [syntax: string, meaning: string];

const COLUMN = 30;

/** Help lines as a block: the meaning beside a short syntax, under a long one. */
export function formatHelp(lines: HelpLine[]): string {
  return lines
    .map(([syntax, meaning]) => (syntax.length < COLUMN - 3 ? `  ${syntax.padEnd(COLUMN - 2)}${meaning}` : `  ${syntax}\n${' '.repeat(COLUMN)}${meaning}`))
    .join('\n');
}

/** Help lines as the commands to type, for "Did you mean one of these?" answers. */
export function usageOf(lines: HelpLine[]): string {
  return lines.map(([syntax]) => `onceflow ${syntax}`).join('\n  ');
}
