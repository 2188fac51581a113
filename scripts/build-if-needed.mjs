// `npm start` builds the web app and the server's bundle only when either is missing or
// older than its sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServerBundle, newestMtime, serverBundleStale } from './server-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'web', 'index.html');

// A build from before the assets were precompressed (vite.config.ts) is stale too.
const assets = join(root, 'dist', 'web', 'assets');
const precompressed = existsSync(assets) && readdirSync(assets).some((name) => name.endsWith('.br'));
const stale = !existsSync(built) || !precompressed || newestMtime(join(root, 'web')) > statSync(built).mtimeMs;
if (stale) {
  console.log('Building the web app…');
  execFileSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
}

// The server runs from its bundle (scripts/server-bundle.mjs); bin/onceflow.mjs falls back
// to the sources when it is stale, so a failed build here only costs memory, not a start.
if (serverBundleStale()) {
  console.log('Building the server…');
  await buildServerBundle().catch((error) => console.warn(`The server bundle could not be built (${error.message}); the server runs from its sources instead.`));
}
