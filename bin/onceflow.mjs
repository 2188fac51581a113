#!/usr/bin/env node
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
