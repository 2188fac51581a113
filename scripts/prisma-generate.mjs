// Generates the two Prisma clients (SQLite and PostgreSQL) from prisma/schema.prisma.
// The Prisma CLI wants a native schema engine it cannot download here; `generate` itself
// runs on WASM, so the engine variable points at a harmless executable for this command
// only. Never set it for `migrate`: migrations are committed SQL applied by the app.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'prisma', 'schema.prisma');
if (!existsSync(source)) process.exit(0);

const schema = readFileSync(source, 'utf8');
const generatedDir = join(root, 'prisma', 'generated');
mkdirSync(generatedDir, { recursive: true });

const variants = {
  sqlite: schema,
  postgresql: schema
    .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
    .replace(/output\s*=\s*"([^"]*)\/sqlite"/, 'output = "$1/postgresql"'),
};

const prismaBin = join(root, 'node_modules', '.bin', 'prisma');
for (const [dialect, text] of Object.entries(variants)) {
  const file = join(generatedDir, `${dialect}.prisma`);
  // Paths inside the schema are relative to the schema file: the copies sit one level deeper.
  writeFileSync(file, text.replace(/output\s*=\s*"\.\.\//, 'output = "../../'));
  execFileSync(prismaBin, ['generate', '--schema', file], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}
