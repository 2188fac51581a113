/** The CLI talks to a running server through the same tRPC API the web app uses. */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { readableMessage } from '../../core/readable-message.ts';
import { UserError } from '../engine/errors.ts';
import type { AppRouter } from '../trpc/router.ts';
import { storedToken } from './login.ts';

export function serverUrl(): string {
  return (process.env.ONCEFLOW_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
}

export function createClient() {
  const url = serverUrl();
  const token = process.env.ONCEFLOW_TOKEN ?? storedToken(url);
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
      }),
    ],
  });
}

export type Client = ReturnType<typeof createClient>;

/**
 * What the server said, in its own words: the sentence of a refusal (`{ error: { message } }`
 * from the access guard, `{ error: "…" }` from webhooks and the login), or Fastify's message
 * with its status when nothing better was sent. Never the raw JSON body.
 */
export function serverMessage(status: number, body: unknown): string {
  if (status === 413) return 'What was sent is larger than the server takes (at most 1 MiB); send something smaller.';
  if (status === 401) return 'The server asks for a login; set ONCEFLOW_TOKEN or run `onceflow login`.';
  const answer = (body ?? {}) as { error?: unknown; message?: unknown };
  const inner = typeof answer.error === 'object' && answer.error !== null ? (answer.error as { message?: unknown }).message : answer.error;
  if (typeof inner === 'string' && /\s/.test(inner)) return readableMessage(inner);
  if (typeof answer.message === 'string' && answer.message) return `The server refused the request (${status}): ${readableMessage(answer.message)}.`;
  return `The server at ${serverUrl()} answered ${status} with nothing Onceflow understands; check ONCEFLOW_URL.`;
}

/** Turns a failed call into one sentence for the terminal: the same words the web app shows. */
export function explainClientError(error: unknown): Error {
  if (error instanceof TRPCClientError) {
    const cause = error.cause as { code?: string; cause?: { code?: string } } | undefined;
    const code = cause?.code ?? cause?.cause?.code;
    if (code === 'ECONNREFUSED' || /fetch failed/i.test(error.message)) {
      return new UserError(`Onceflow is not reachable at ${serverUrl()}; start it with \`npm start\` or set ONCEFLOW_URL.`);
    }
    const meta = error.meta as { response?: { status?: number }; responseJSON?: unknown } | undefined;
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus ?? meta?.response?.status;
    // A tRPC error carries the server's sentence (server/trpc/trpc.ts); anything else
    // (the access guard, body limits, a proxy in between) is read from its body.
    if (error.shape === undefined || status === 401) {
      if (status === undefined) return new UserError(`The server at ${serverUrl()} did not answer as Onceflow does; check ONCEFLOW_URL.`, { cause: error });
      return new UserError(serverMessage(status, meta?.responseJSON), { cause: error });
    }
    return new UserError(readableMessage(error.message), { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
