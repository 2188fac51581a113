import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildServerBundle, inputsPathOf, serverBundleStale as bundleStale } from './server-bundle.mjs';

describe('when the server bundle counts as stale', () => {
  let dir = '';
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'onceflow-bundle-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function file(path: string, secondsAgo: number) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, '');
    // Whole seconds, which every file system keeps exactly.
    const at = new Date((Math.floor(Date.now() / 1000) - secondsAgo) * 1000);
    utimesSync(full, at, at);
  }

  /** A bundle built 100 s ago from `inputs`. */
  function bundle(inputs: string[]) {
    file('dist/server/onceflow.mjs', 100);
    writeFileSync(join(dir, 'dist/server/onceflow.inputs.json'), JSON.stringify(inputs));
    return join(dir, 'dist/server/onceflow.mjs');
  }

  it('is fresh while every file it was built from is older, whatever else changed beside them', () => {
    file('server/cli.ts', 300);
    file('core/duration.ts', 200);
    const built = bundle(['server/cli.ts', 'core/duration.ts']);
    // Written after the build, none of them read by it: a note, a test, the Prisma model types.
    file('server/engine/ARCHITECTURE.md', 10);
    file('server/cli.test.ts', 10);
    file('server/store/generated/sqlite/models.ts', 10);
    expect(bundleStale(built, dir)).toBe(false);
  });

  it('is stale once a file it was built from changed after it, or is gone', () => {
    file('server/cli.ts', 300);
    file('server/data/words.json', 300);
    const built = bundle(['server/cli.ts', 'server/data/words.json']);
    expect(bundleStale(built, dir)).toBe(false);
    file('server/data/words.json', 10);
    expect(bundleStale(built, dir)).toBe(true);
    file('server/data/words.json', 300);
    rmSync(join(dir, 'server/cli.ts'));
    expect(bundleStale(built, dir)).toBe(true);
  });

  it('is stale without the bundle, or without a readable list of what it was built from', () => {
    expect(bundleStale(join(dir, 'dist/server/onceflow.mjs'), dir)).toBe(true);
    file('server/cli.ts', 300);
    const built = bundle(['server/cli.ts']);
    writeFileSync(inputsPathOf(built), '{ not json');
    expect(bundleStale(built, dir)).toBe(true);
    rmSync(inputsPathOf(built));
    expect(bundleStale(built, dir)).toBe(true);
  });

  it('lists, when built, the server\'s code it read and nothing it did not', async () => {
    const outfile = join(dir, 'onceflow.mjs');
    await buildServerBundle(outfile);
    const inputs = JSON.parse(readFileSync(inputsPathOf(outfile), 'utf8')) as string[];
    expect(inputs).toContain('server/cli.ts');
    expect(inputs).toContain('server/store/db.ts');
    expect(inputs).toContain('core/duration.ts');
    expect(inputs.filter((input) => /\.test\.ts$|\/generated\/|node_modules/.test(input))).toEqual([]);
    expect(statSync(outfile).size).toBeGreaterThan(100_000);
    expect(bundleStale(outfile)).toBe(false);
  }, 60_000);
});
