/**
 * Vitest's global setup: the server's bundle, built when it is missing or older than its
 * sources, so the servers and `onceflow` commands the tests start run from it as `npm start`
 * does (bin/onceflow.mjs) instead of from the TypeScript sources through tsx's loader. A
 * start from the sources took about 2 s of CPU against 0.7 s from the bundle; the suite starts
 * a hundred and more (twice that with PostgreSQL), and on a slow 2-core machine tests that
 * run eight `onceflow` commands in a row went past their 30 s.
 */
import { buildServerBundleIfStale } from '../../scripts/server-bundle.mjs';

export default async function setup(): Promise<void> {
  await buildServerBundleIfStale();
}
