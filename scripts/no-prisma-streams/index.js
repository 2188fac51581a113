// `prisma dev` (a local Prisma Postgres server) is the only user of @prisma/streams-local,
// and Onceflow never runs it: the Prisma CLI is here for `prisma generate` alone
// (scripts/prisma-generate.mjs). The real package wants Node 22 or newer, so package.json's
// "overrides" puts this stand-in in its place and `npm ci` stays free of engine warnings on
// Node 20.
throw new Error('`prisma dev` is not available in Onceflow: @prisma/streams-local is replaced by a stand-in (see package.json "overrides").');
