// The server as one ES module (dist/server/onceflow.mjs), built with esbuild from
// server/cli.ts; dependencies stay in node_modules. Running the bundle instead of the
// TypeScript sources through tsx's loader keeps the compiler and its caches out of the
// running process (about 60 MB of its memory at idle) and starts faster. The bundle sits
// two folders deep, as the sources do, so paths they resolve from their own place
// (dist/web, gallery/, prisma/migrations) resolve the same from it.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = join(root, 'dist', 'server', 'onceflow.mjs');

/**
 * Where a bundle's list of the files it was built from is kept: beside it, its name ending
 * in `.inputs.json` instead of `.mjs`. Staleness goes by that list, not by everything under
 * server/: files the bundle never reads — tests, notes, the Prisma model types that
 * `postinstall` writes again whenever the project is installed (`npx onceflow` inside the
 * checkout installs it into npx's cache) — must not send the server back to its sources
 * through tsx, 30–40 MB heavier.
 */
export const inputsPathOf = (bundle) => bundle.replace(/\.mjs$/, '.inputs.json');

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

/**
 * Whether the server's bundle (or `bundle`, its inputs' paths taken from `base`) must be
 * built again: it or its list of inputs is missing or unreadable, or one of the files it was
 * built from changed after it or is gone. A file newly added is read only once an input
 * imports it, and that input then changed.
 */
export function serverBundleStale(bundle = bundlePath, base = root) {
  if (!existsSync(bundle)) return true;
  const built = statSync(bundle).mtimeMs;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsPathOf(bundle), 'utf8'));
  } catch {
    return true;
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return true;
  return inputs.some((input) => {
    const changed = statSync(join(base, input), { throwIfNoEntry: false })?.mtimeMs;
    return changed === undefined || changed > built; // gone, or changed after the build
  });
}

/** Builds the server's bundle (or one at `outfile`), and beside it the list of its inputs. */
export async function buildServerBundle(outfile = bundlePath) {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'server', 'cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  // Paths relative to the project, as esbuild gives them with absWorkingDir set.
  writeFileSync(inputsPathOf(outfile), `${JSON.stringify(Object.keys(result.metafile.inputs).sort(), null, 1)}\n`);
}

/** Builds the server's bundle only when `serverBundleStale()` says so; whether it did. */
export async function buildServerBundleIfStale() {
  if (!serverBundleStale()) return false;
  await buildServerBundle();
  return true;
}

// `node scripts/server-bundle.mjs`: build it now; with `--if-stale`, only when stale.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await (process.argv.includes('--if-stale') ? buildServerBundleIfStale() : buildServerBundle());
}
