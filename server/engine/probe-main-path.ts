import { fileURLToPath } from 'node:url';

/**
 * Where the probe's entry point is (test-mode/probe-launcher.ts). Paths found from
 * `import.meta.url` live in files two folders deep, as the server's bundle
 * (dist/server/onceflow.mjs, scripts/server-bundle.mjs) is: `../../` is the project's root
 * from either, so the path is the same whether the sources or the bundle run.
 */
export const PROBE_MAIN = fileURLToPath(new URL('../../server/probe-main.ts', import.meta.url));
