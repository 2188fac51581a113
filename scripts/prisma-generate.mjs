// Generates the Prisma model types from prisma/schema.prisma into server/store/generated/.
// Nothing opens a Prisma client at run time: every statement goes through server/store/db.ts.
// The types hold the hand-written row mappers to the schema (server/store/rows.schema.test.ts,
// checked by `npm run typecheck`); they are the same for both databases, so one client is
// generated, from the schema as written (SQLite).
// The Prisma CLI wants a native schema engine it cannot download here; `generate` itself
// runs on WASM, so the engine variable points at a harmless executable for this command
// only. Never set it for `migrate`: migrations are committed SQL applied by the app.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schema = join(root, 'prisma', 'schema.prisma');
if (!existsSync(schema)) process.exit(0);

execFileSync(join(root, 'node_modules', '.bin', 'prisma'), ['generate', '--schema', schema], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
