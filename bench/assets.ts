/**
 * What the first page costs to download: the JavaScript index.html loads up front (its
 * module script and every modulepreload), as the server sends it — the brotli and gzip
 * copies made at build time (scripts/vite-precompress.ts). Pages loaded later (the editor,
 * the run pages) are not counted. The budget is 150 KB (1 KB = 1,000 bytes) for the larger
 * of the two, so a browser without brotli stays within it too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'dist', 'web');
export const FIRST_PAGE_BUDGET_BYTES = 150_000;

export interface AssetsBenchResult {
  /** The files index.html loads up front, as it names them. */
  files: string[];
  rawBytes: number;
  brotliBytes: number;
  gzipBytes: number;
  budgetBytes: number;
  withinBudget: boolean;
}

/** The JavaScript index.html fetches before anything runs: module scripts and modulepreloads. */
export function firstPageScripts(html: string): string[] {
  const found = new Set<string>();
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const isModule = /^<script/i.test(tag) && /\btype=["']?module\b/i.test(tag);
    const isPreload = /^<link/i.test(tag) && /\brel=["']?modulepreload\b/i.test(tag);
    const address = /\b(?:src|href)=["']?([^"'\s>]+)/i.exec(tag)?.[1];
    if ((isModule || isPreload) && address) found.add(address);
  }
  return [...found];
}

/** The size of the copy the server sends for this encoding (the file itself when none was made). */
function sentSize(path: string, suffix: '.br' | '.gz'): number {
  return existsSync(path + suffix) ? statSync(path + suffix).size : statSync(path).size;
}

export function benchAssets(): AssetsBenchResult {
  // The same check `npm start` makes: build only when the build is missing or stale.
  // Its messages go to stderr, so that `--json` output stays JSON.
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-needed.mjs')], { stdio: ['ignore', 2, 2] });
  const files = firstPageScripts(readFileSync(join(WEB, 'index.html'), 'utf8'));
  const paths = files.map((file) => join(WEB, file.replace(/^\//, '')));
  const sum = (size: (path: string) => number) => paths.reduce((total, path) => total + size(path), 0);
  const brotliBytes = sum((path) => sentSize(path, '.br'));
  const gzipBytes = sum((path) => sentSize(path, '.gz'));
  return {
    files,
    rawBytes: sum((path) => statSync(path).size),
    brotliBytes,
    gzipBytes,
    budgetBytes: FIRST_PAGE_BUDGET_BYTES,
    withinBudget: Math.max(brotliBytes, gzipBytes) < FIRST_PAGE_BUDGET_BYTES,
  };
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export function printAssets(result: AssetsBenchResult): void {
  console.log(`\nThe first page's JavaScript (${result.files.length} file${result.files.length === 1 ? '' : 's'} loaded up front by index.html)`);
  console.table([{
    raw: kb(result.rawBytes), brotli: kb(result.brotliBytes), gzip: kb(result.gzipBytes),
    budget: kb(result.budgetBytes), within: result.withinBudget ? 'yes' : 'NO',
  }]);
}
