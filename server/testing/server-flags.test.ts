/**
 * The server's Node flags are written in five places that cannot import one another (a
 * shebang line, npm's start script, the Playwright configs, the test harness): every place
 * must pass every flag, or one way of starting the server runs with a different heap.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from './server-process.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the server\'s Node flags', () => {
  const places: [string, string][] = [
    ['bin/onceflow.mjs (its first line)', read('bin/onceflow.mjs').split('\n')[0]!],
    ['package.json (npm start)', (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!],
    ['playwright.config.ts', read('playwright.config.ts')],
    ['e2e/bench.config.ts', read('e2e/bench.config.ts')],
  ];

  it.each(places)('are all passed by %s', (_place, text) => {
    const words = text.split(/[\s'"`]+/);
    for (const flag of SERVER_NODE_FLAGS) expect(words, `${flag} is missing`).toContain(flag);
  });
});
