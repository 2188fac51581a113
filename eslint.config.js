// Lint for the whole package: typescript-eslint's recommended rules, a few type-aware
// checks, and the boundaries between the rooms (server/engine/ARCHITECTURE.md):
//
//   core/    the pure rules both sides run; imports only core/ (no server/, web/, packages
//            or Node built-ins), so the browser can run the very code the engine runs
//   store/   all SQL; imports nothing from engine/
//   engine/  imports neither http/, trpc/, Fastify nor @trpc/server
//   web/     imports values from core/, and only types from server/
//
// `npm run lint`; `npm test` runs it as one step.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Files that still cross a boundary while their code is being moved. Each is exempt only
// from the rule it breaks; an entry goes when its file is clean, and the lists end empty.
const PENDING = {
  sqlOutsideStore: [],
  storeImportsEngine: [],
  webImportsServerValues: [],
  unusedNames: ['server/http/fuzz.test.ts', 'server/http/webhooks.security.test.ts'],
};

// Tests and their helpers may read and write tables directly to set up a case or check its rows.
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', 'server/testing/**'];

// A string or the first part of a template that reads as a SQL statement. Requires a word
// after the keyword, so an HTTP method ('DELETE') or a label ('DELETE — remove…') is not one.
const SQL_STATEMENT = String.raw`/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s+[\w*("]/`;
const SQL_MESSAGE = 'SQL belongs in server/store/: add a function there (one module per table or operation family) and call it.';

// Globals Node has and browsers lack; core/ must not lean on them.
const NODE_GLOBALS = ['Buffer', 'process', 'global', 'require', 'module', '__dirname', '__filename', 'setImmediate'];

export default defineConfig(
  {
    ignores: ['node_modules/', 'dist/', 'data/', '.tmp/', 'test-results/', 'playwright-report/', 'server/store/generated/', 'prisma/generated/'],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },

  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Validation code matches control characters on purpose.
      'no-control-regex': 'off',
      // `let server` declared before the closure that assigns it is a house pattern.
      'prefer-const': 'off',
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['web/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // With verbatimModuleSyntax an import of types only must say so, or it stays in the output.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },

  // SQL text only in server/store/.
  {
    name: 'onceflow/sql-in-store',
    files: ['core/**', 'server/**', 'web/**'],
    ignores: ['server/store/**', ...TEST_FILES],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `Literal[value=${SQL_STATEMENT}]`, message: SQL_MESSAGE },
        { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL_STATEMENT}]`, message: SQL_MESSAGE },
      ],
    },
  },

  // core/ runs in the browser as well as in Node, where Node's own globals do not exist.
  {
    name: 'onceflow/core-without-node',
    files: ['core/**'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-globals': ['error', ...NODE_GLOBALS.map((name) => ({ name, message: 'core/ runs in the browser too: keep code that needs Node in server/.' }))],
    },
  },

  // Which room may import which, resolved to files (not matched on import text).
  {
    name: 'onceflow/boundaries',
    files: ['core/**', 'server/**', 'web/**'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': [
        { type: 'core', pattern: 'core', partialMatch: false },
        { type: 'store', pattern: 'server/store', partialMatch: false },
        { type: 'engine', pattern: 'server/engine', partialMatch: false },
        { type: 'http', pattern: 'server/http', partialMatch: false },
        { type: 'trpc', pattern: 'server/trpc', partialMatch: false },
        { type: 'server', pattern: 'server', partialMatch: false },
        { type: 'web', pattern: 'web', partialMatch: false },
      ],
      'boundaries/elements-single-match': true,
    },
    rules: {
      'boundaries/dependencies': ['error', {
        default: 'allow',
        // Imports of packages are checked too (by default only this package's own files are).
        checkAllOrigins: true,
        policies: [
          {
            from: { element: { type: 'core' } },
            disallow: { to: { element: { types: { anyOf: ['store', 'engine', 'http', 'trpc', 'server', 'web'] } } } },
            message: 'core/ must not import from server/ or web/, not even types: both sides build on it, so it stands on its own.',
          },
          {
            // Its tests may import the test runner; the modules themselves run in the browser and in Node alike.
            from: { element: { type: 'core', fileInternalPath: '!**/*.test.ts' } },
            disallow: { to: { module: { origin: ['external', 'core'] } } },
            message: 'core/ imports no packages and no Node built-ins: the browser runs it as the server does. Keep what needs them in server/.',
          },
          {
            from: { element: { type: 'store' } },
            disallow: { to: { element: { type: 'engine' } } },
            message: 'server/store/ must not import from server/engine/: give the store its own row types and errors, and let the engine translate.',
          },
          {
            from: { element: { type: 'engine' } },
            disallow: { to: { element: { types: { anyOf: ['http', 'trpc'] } } } },
            message: 'server/engine/ must not import from server/http/ or server/trpc/: the adapters call the engine, not the other way round.',
          },
          {
            from: { element: { type: 'engine' } },
            disallow: { to: { module: { origin: 'external', source: ['fastify', '@fastify/*', '@trpc/server'] } } },
            message: 'server/engine/ must not import Fastify or @trpc/server: translate requests and errors in server/http/ or server/trpc/.',
          },
          {
            from: { element: { type: 'web' } },
            disallow: {
              to: { element: { types: { anyOf: ['store', 'engine', 'http', 'trpc', 'server'] } } },
              dependency: { kind: 'value' },
            },
            message: 'web/ may import only types from server/ (`import type`); code both sides run belongs in core/.',
          },
        ],
      }],
    },
  },

  // Temporary exemptions (see PENDING above).
  ...exempt('pending/sql-outside-store', PENDING.sqlOutsideStore, { 'no-restricted-syntax': 'off' }),
  ...exempt('pending/imports', [...PENDING.storeImportsEngine, ...PENDING.webImportsServerValues], { 'boundaries/dependencies': 'off' }),
  ...exempt('pending/unused-names', PENDING.unusedNames, { '@typescript-eslint/no-unused-vars': 'off' }),
);

/** A config block that turns `rules` off for `files`, or none once the list is empty. */
function exempt(name, files, rules) {
  return files.length > 0 ? [{ name, files, rules }] : [];
}
