/**
 * tRPC setup. Engine errors become tRPC codes here and only here; anything unexpected is
 * logged with its cause and shown to people as a generic sentence. Every answer, and
 * every error sent back, passes the masker on its way out (DESIGN.md §10).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { NotFoundError, UserError } from '../engine/errors.ts';
import type { Services } from '../services.ts';
import { refusedValue, refusedValueMessage } from '../store/db-errors.ts';

export interface Context {
  services: Services;
  user: string;
}

const t = initTRPC.context<Context>().create({
  // A watched run may go minutes without an event (a delay step): a ping keeps its stream
  // well inside the server's idle-connection limit, and the client reconnects if pings stop.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 45_000 } },
  errorFormatter({ shape, error, ctx }) {
    const details = error.cause instanceof UserError ? error.cause.details : undefined;
    const message = (error.code === 'BAD_REQUEST' && inputProblems(error.cause)) || shape.message;
    return masked(ctx, { ...shape, message, data: { ...shape.data, stack: undefined, details } });
  },
});

/**
 * A refused input as sentences, instead of the schema library's JSON dump: the input
 * schemas' own messages are sentences; other messages are prefixed with the field.
 */
function inputProblems(cause: unknown): string | undefined {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const sentences = issues.map((issue: { message?: unknown; path?: unknown }) => {
    const message = String(issue.message ?? 'This value is not accepted');
    const field = Array.isArray(issue.path) ? issue.path.map(String).join('.') : '';
    return /[.!?]$/.test(message) || !field ? message : `${field}: ${message}.`;
  });
  return [...new Set(sentences)].join(' ');
}

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
    // The safety net behind the input schemas: a value the database refuses is the
    // sender's to fix, never a server fault.
    const refused = refusedValue(cause);
    if (refused) throw new TRPCError({ code: 'BAD_REQUEST', message: refusedValueMessage(refused), cause });
    if (result.error.code === 'INTERNAL_SERVER_ERROR') {
      ctx.services.log.error({ err: cause ?? result.error }, 'request failed');
      throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on the server; it has been logged.' });
    }
  }
  return result;
});

/** The answer with every secret's value masked (fake contexts in tests may lack a database). */
function masked<T>(ctx: Context | undefined, answer: T): T {
  return ctx?.services.db?.masker.deep(answer) ?? answer;
}

const maskAnswers = t.middleware(async ({ next, ctx }) => {
  // Values set by another process since the last look (a query at most once a second).
  await ctx.services.secrets?.values().catch(() => {});
  const result = await next();
  return result.ok ? { ...result, data: masked(ctx, result.data) } : result;
});

export const router = t.router;
export const procedure = t.procedure.use(maskAnswers).use(translateErrors);
