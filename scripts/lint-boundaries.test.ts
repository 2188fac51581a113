import { readdirSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// Lints small snippets as if they were files of the package, with the package's own
// eslint.config.js. The snippets exist only in memory, so the type-aware rules (which need
// the file in the TypeScript program) are switched off here; the boundary and SQL rules
// read imports and literals, not types, and are exactly those `npm run lint` applies.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: join(root, 'eslint.config.js'),
    overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], ...tseslint.configs.disableTypeChecked }],
  });
});

/** Lints `code` as the file `filePath` (relative to the package root); answers the rule ids that fired. */
async function lint(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  if (!result) throw new Error('ESLint returned no result.');
  const parseErrors = result.messages.filter((message) => message.ruleId === null);
  if (parseErrors.length > 0) throw new Error(parseErrors.map((message) => message.message).join('\n'));
  return result.messages.map((message) => message.ruleId ?? '');
}

/** An import path from `fromFile` to some real module of `folder`, so the rule resolves it to a file. */
function moduleIn(folder: string, fromFile: string): string {
  const name = readdirSync(join(root, folder)).find((file) => /^[a-z][\w-]*\.ts$/.test(file) && !file.endsWith('.test.ts'));
  if (!name) throw new Error(`No module found in ${folder}.`);
  const path = relative(posix.dirname(fromFile), posix.join(folder, name)).split('\\').join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

describe('SQL outside server/store/', () => {
  it('is refused in the engine, in a plain string and in a template', async () => {
    const file = 'server/engine/lint-example.ts';
    expect(await lint(file, "export const pending = 'SELECT id FROM runs WHERE status = ?';\n")).toEqual(['no-restricted-syntax']);
    expect(await lint(file, 'export const take = (table: string) => `\n  UPDATE runs SET status = \'running\' WHERE id IN (SELECT id FROM ${table})`;\n')).toEqual(['no-restricted-syntax']);
    expect(await lint(file, "export const purge = `DELETE FROM claims WHERE expires_at < ?`;\n")).toEqual(['no-restricted-syntax']);
  });

  it('is refused in the web app and the HTTP adapter too', async () => {
    expect(await lint('web/runs/lint-example.ts', "export const q = 'INSERT INTO runs (id) VALUES (?)';\n")).toEqual(['no-restricted-syntax']);
    expect(await lint('server/http/lint-example.ts', "export const q = 'WITH recent AS (SELECT 1) SELECT * FROM recent';\n")).toEqual(['no-restricted-syntax']);
  });

  it('is allowed in server/store/ and in tests', async () => {
    const statement = "export const pending = 'SELECT id FROM runs WHERE status = ?';\n";
    expect(await lint('server/store/lint-example.ts', statement)).toEqual([]);
    expect(await lint('server/engine/lint-example.test.ts', statement)).toEqual([]);
  });

  it('does not mistake words that only look like SQL keywords', async () => {
    const code = "export const methods = ['GET', 'DELETE'];\nexport const label = 'DELETE — remove something';\nexport const hint = 'Select a step to see its settings.';\n";
    expect(await lint('web/editor/lint-example.ts', code)).toEqual([]);
  });
});

describe('imports between the server folders', () => {
  it('refuses server/store/ importing server/engine/, even for types', async () => {
    const file = 'server/store/lint-example.ts';
    const engine = moduleIn('server/engine', file);
    expect(await lint(file, `import * as engine from '${engine}';\nexport { engine };\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `import type * as engine from '${engine}';\nexport type Engine = typeof engine;\n`)).toEqual(['boundaries/dependencies']);
  });

  it('lets the engine import the store, and the store itself', async () => {
    const file = 'server/engine/lint-example.ts';
    expect(await lint(file, `import * as store from '${moduleIn('server/store', file)}';\nexport { store };\n`)).toEqual([]);
    const storeFile = 'server/store/lint-example.ts';
    expect(await lint(storeFile, `import * as store from '${moduleIn('server/store', storeFile)}';\nexport { store };\n`)).toEqual([]);
  });

  it('refuses server/engine/ importing the HTTP and tRPC adapters', async () => {
    const file = 'server/engine/steps/lint-example.ts';
    expect(await lint(file, `import * as http from '${moduleIn('server/http', file)}';\nexport { http };\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `import * as trpc from '${moduleIn('server/trpc', file)}';\nexport { trpc };\n`)).toEqual(['boundaries/dependencies']);
  });

  it('refuses server/engine/ importing Fastify or @trpc/server', async () => {
    const file = 'server/engine/lint-example.ts';
    expect(await lint(file, "import Fastify from 'fastify';\nexport const app = Fastify();\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "import { TRPCError } from '@trpc/server';\nexport { TRPCError };\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';\nexport { fastifyTRPCPlugin };\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "import fastifyStatic from '@fastify/static';\nexport { fastifyStatic };\n")).toEqual(['boundaries/dependencies']);
    expect(await lint('server/http/lint-example.ts', "import Fastify from 'fastify';\nexport const app = Fastify();\n")).toEqual([]);
  });
});

describe('core/, the rules both sides run', () => {
  const file = 'core/templates/lint-example.ts';

  it('refuses importing server/ or web/, even for types', async () => {
    const engine = moduleIn('server/engine', file);
    expect(await lint(file, `import * as engine from '${engine}';\nexport { engine };\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `import type * as engine from '${engine}';\nexport type Engine = typeof engine;\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `import * as web from '${moduleIn('web/lib', file)}';\nexport { web };\n`)).toEqual(['boundaries/dependencies']);
  });

  it('refuses packages, Node built-ins and Node globals', async () => {
    expect(await lint(file, "import { z } from 'zod';\nexport const id = z.string();\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "import { createHash } from 'node:crypto';\nexport { createHash };\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "import { readFileSync } from 'fs';\nexport { readFileSync };\n")).toEqual(['boundaries/dependencies']);
    expect(await lint(file, "export const bytes = (text: string) => Buffer.byteLength(text);\n")).toEqual(['no-restricted-globals']);
  });

  it('allows its own modules, and the test runner in its tests', async () => {
    expect(await lint(file, `import * as core from '${moduleIn('core', file)}';\nexport { core };\n`)).toEqual([]);
    expect(await lint('core/templates/lint-example.test.ts', "import { expect, it } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\n")).toEqual([]);
  });

  it('is imported, values and all, by the web app and the engine', async () => {
    for (const from of ['web/editor/lint-example.ts', 'server/engine/flow/lint-example.ts']) {
      expect(await lint(from, `import * as core from '${moduleIn('core', from)}';\nexport { core };\n`)).toEqual([]);
    }
  });
});

describe('the web app and server/', () => {
  const file = 'web/runs/lint-example.ts';

  it('refuses a value imported from server/', async () => {
    const engine = moduleIn('server/engine', file);
    expect(await lint(file, `import * as engine from '${engine}';\nexport { engine };\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `export * from '${engine}';\n`)).toEqual(['boundaries/dependencies']);
    expect(await lint(file, `export const load = () => import('${engine}');\n`)).toEqual(['boundaries/dependencies']);
  });

  it('refuses inline type specifiers, which leave the server module loaded in the bundle', async () => {
    const code = "import { type AppRouter } from '../../server/trpc/router.ts';\nexport type Router = AppRouter;\n";
    expect(await lint(file, code)).toEqual(['@typescript-eslint/no-import-type-side-effects', 'boundaries/dependencies']);
  });

  it('allows types imported from server/', async () => {
    const code = "import type { AppRouter } from '../../server/trpc/router.ts';\nexport type Router = AppRouter;\n";
    expect(await lint(file, code)).toEqual([]);
  });
});
