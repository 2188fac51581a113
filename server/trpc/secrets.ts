import { z } from 'zod';
import { procedure, router } from './trpc.ts';

// The service checks names and sizes with plain messages; these bounds only keep
// oversized input from reaching it (64 KiB of text is at most 65,536 characters).
const name = z.string({ error: 'Give the secret a name.' }).min(1, 'Give the secret a name.').max(64, 'A secret name is at most 64 characters.');
const value = z.string({ error: 'Give the secret a value.' }).max(65_536, 'A secret value can be at most 64 KiB.');

export const secretsRouter = router({
  /** Names and last change times; values never leave the server through the API. */
  list: procedure.query(({ ctx }) => ctx.services.secrets.list()),
  set: procedure
    .input(z.object({ name, value }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.secrets.set(input.name, input.value);
      return { name: input.name };
    }),
  delete: procedure
    .input(z.object({ name }))
    .mutation(async ({ ctx, input }) => ({ name: input.name, deleted: await ctx.services.secrets.delete(input.name) })),
});
