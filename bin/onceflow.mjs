#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// (The first flag holds V8's young generation at 8 MB a half instead of letting it grow to
// 16: about 20 MB less under load, the same idle figure and speed. At 4 it took about 6 MB more
// off the idle figure, but runs in flight outlived its collections: webhook to finished run
// spent a sixth more CPU a run. The second lets the old generation grow to half again what
// the last full collection left before the next, where V8 would otherwise let it grow up to
// fourfold: about 35 MB less at the peak under webhook load, at no measurable speed.
// `npm start`, the Playwright configs and the test harness (server/testing/server-process.ts)
// pass the same flags; server-flags.test.ts checks it. README.md, *Where the memory goes*.)
// The `onceflow` command. It runs the server's bundle (dist/server/onceflow.mjs, built by
// `npm run build` and before `npm start`) when it is newer than every source it was built
// from (scripts/server-bundle.mjs); otherwise the TypeScript sources themselves through
// tsx's loader, so an edit takes effect at once.
import { pathToFileURL } from 'node:url';
import { bundlePath, serverBundleStale } from '../scripts/server-bundle.mjs';

if (!serverBundleStale()) {
  await import(pathToFileURL(bundlePath).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli.ts');
}
