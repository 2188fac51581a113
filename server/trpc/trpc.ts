/**
 * tRPC setup. Engine errors become tRPC codes here and only here; anything unexpected is
 * logged with its cause and shown to people as a generic sentence.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { NotFoundError, UserError } from '../engine/errors.ts';
import type { Services } from '../services.ts';

export interface Context {
  services: Services;
  user: string;
}

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const details = error.cause instanceof UserError ? error.cause.details : undefined;
    return { ...shape, data: { ...shape.data, stack: undefined, details } };
  },
});

const translateErrors = t.middleware(async ({ next, ctx }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof NotFoundError) {
      throw new TRPCError({ code: 'NOT_FOUND', message: cause.message, cause });
    }
    if (cause instanceof UserError) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: cause.message, cause });
    }
    if (result.error.code === 'INTERNAL_SERVER_ERROR') {
      ctx.services.log.error({ err: cause ?? result.error }, 'request failed');
      throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on the server; it has been logged.' });
    }
  }
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(translateErrors);
