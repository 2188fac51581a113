// The server as one ES module (dist/server/onceflow.mjs), built with esbuild from
// server/cli.ts; dependencies stay in node_modules. Running the bundle instead of the
// TypeScript sources through tsx's loader keeps the compiler and its caches out of the
// running process (about 60 MB of its memory at idle) and starts faster. The bundle sits
// two folders deep, as the sources do, so paths they resolve from their own place
// (dist/web, gallery/, prisma/migrations) resolve the same from it.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = join(root, 'dist', 'server', 'onceflow.mjs');
const SOURCES = ['server', 'core'].map((dir) => join(root, dir));
// What the bundle is built from. Other files there (server/engine/ARCHITECTURE.md) are not
// code: an edit to one must not send `npm start` back to the sources through tsx.
const CODE = /\.(ts|tsx|js|mjs|cjs|json)$/;

/** The latest change to a file under `dir` that `counts` (by its name), in ms; 0 when none. */
export function newestMtime(dir, counts = () => true) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, counts));
    else if (counts(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The latest change to a code file under `dir`: what makes the server's bundle stale. */
export const newestCodeMtime = (dir) => newestMtime(dir, (name) => CODE.test(name));

/** Whether the bundle is missing or older than any code file of server/ or core/. */
export function serverBundleStale() {
  if (!existsSync(bundlePath)) return true;
  const built = statSync(bundlePath).mtimeMs;
  return SOURCES.some((dir) => newestCodeMtime(dir) > built);
}

export async function buildServerBundle() {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'server', 'cli.ts')],
    outfile: bundlePath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

// `node scripts/server-bundle.mjs`: build it now.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildServerBundle();
