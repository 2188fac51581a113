/** The CLI talks to a running server through the same tRPC API the web app uses. */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
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

/** Turns transport failures into one sentence for the terminal. */
export function explainClientError(error: unknown): Error {
  if (error instanceof TRPCClientError) {
    const cause = error.cause as { code?: string; cause?: { code?: string } } | undefined;
    const code = cause?.code ?? cause?.cause?.code;
    if (code === 'ECONNREFUSED' || /fetch failed/i.test(error.message)) {
      return new UserError(`Onceflow is not reachable at ${serverUrl()}; start it with \`npm start\` or set ONCEFLOW_URL.`);
    }
    if (error.data?.httpStatus === 401) {
      return new UserError('The server asks for a login; set ONCEFLOW_TOKEN or run `onceflow login`.');
    }
    return new UserError(error.message);
  }
  return error instanceof Error ? error : new Error(String(error));
}
