#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// (The first flag keeps V8's young generation at 4 MB a half instead of growing to 16: about
// 10 MB less at idle and 20 MB less under load. The second lets the old generation grow to
// half again what the last full collection left before the next, where V8 would otherwise
// let it grow up to fourfold: about 35 MB less at the peak under webhook load. Neither cost
// a measurable speed. `npm start`, the Playwright configs and the test harness
// (server/testing/server-process.ts) pass the same flags; server-flags.test.ts checks it.)
// The `onceflow` command. It runs the server's bundle (dist/server/onceflow.mjs, built by
// `npm run build` and before `npm start`) when it is newer than every source; otherwise the
// TypeScript sources themselves through tsx's loader, so an edit takes effect at once.
import { pathToFileURL } from 'node:url';
import { bundlePath, serverBundleStale } from '../scripts/server-bundle.mjs';

if (!serverBundleStale()) {
  await import(pathToFileURL(bundlePath).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli.ts');
}
