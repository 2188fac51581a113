import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newestCodeMtime } from './server-bundle.mjs';

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
    return at.getTime();
  }

  it('goes by the newest code file, however deep, and not by notes beside the code', () => {
    file('engine/ARCHITECTURE.md', 10);
    file('cli.ts', 300);
    const newest = file('engine/flow/document.ts', 200);
    expect(newestCodeMtime(dir)).toBe(newest);
  });

  it('counts every kind of file the bundle is built from', () => {
    file('a.ts', 500);
    const newest = file('data/words.json', 100);
    expect(newestCodeMtime(dir)).toBe(newest);
  });
});
