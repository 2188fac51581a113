/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every text file of the web build, once,
 * at build time, at the highest levels (too slow to do per request, free here). The server
 * sends them as they are (@fastify/static `preCompressed`), picking what the browser accepts.
 *
 * node:zlib has both formats built in, so a few lines here do what a plugin package such as
 * vite-plugin-compression2 does, without one more dependency to keep up to date.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.webmanifest']);
/** Below this, compression saves less than the headers it adds (default: 1 KB). */
const SMALLEST = 1024;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (COMPRESSIBLE.has(extname(entry.name))) yield path;
  }
}

/** Compresses every text file under `dir`; a copy that is not smaller is not written. */
export async function precompress(dir: string): Promise<void> {
  const jobs: Promise<void>[] = [];
  for await (const path of filesUnder(dir)) {
    jobs.push((async () => {
      if ((await stat(path)).size < SMALLEST) return;
      const original = await readFile(path);
      const [br, gz] = await Promise.all([
        brotli(original, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: original.length } }),
        gzipped(original, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < original.length) await writeFile(`${path}.br`, br);
      if (gz.length < original.length) await writeFile(`${path}.gz`, gz);
    })());
  }
  await Promise.all(jobs);
}

export function precompressPlugin(): Plugin {
  let outDir = '';
  return {
    name: 'onceflow:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    async closeBundle() {
      await precompress(outDir);
    },
  };
}
