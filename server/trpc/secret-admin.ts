/**
 * The Secrets page's procedures (web/secrets/): names, change times and the flows that use
 * each; add, replace and delete. A value goes in and never comes out: no procedure here
 * answers with one, and every answer passes the masker besides (trpc.ts).
 */
import { z } from 'zod';
import { deleteSecret, saveSecret, secretOverview } from '../engine/secrets/secret-admin.ts';
import { flowStore } from '../store/flows.ts';
import { procedure, router } from './trpc.ts';

// The service checks names and values with plain messages (the CLI's rules); these bounds
// only keep oversized input from reaching it.
const name = z.string({ error: 'Give the secret a name.' }).min(1, 'Give the secret a name.').max(200, 'A secret name is at most 64 characters.');
const value = z.string({ error: 'Give the secret a value.' }).min(1, 'Give the secret a value.').max(65_536, 'A secret value can be at most 64 KiB.');

export const secretAdminRouter = router({
  list: procedure.query(({ ctx }) => secretOverview(ctx.services.secrets, flowStore(ctx.services.db))),
  save: procedure
    .input(z.object({ name, value, replace: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => saveSecret(ctx.services.secrets, input)),
  delete: procedure
    .input(z.object({ name }))
    .mutation(({ ctx, input }) => deleteSecret(ctx.services.secrets, flowStore(ctx.services.db), input.name)),
});
