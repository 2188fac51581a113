/**
 * Where this server's sandbox answers (its HTTP receivers and mail server), from the
 * server: the editor suggests the receivers under URL fields and gives new Send email steps
 * the mail server, whatever port it took.
 */
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { queryClient, trpc } from '../lib/trpc.ts';
import type { NewStepContext } from './node-kinds.ts';

export type SandboxAddresses = inferRouterOutputs<AppRouter>['sandboxAddresses'];

// The addresses stay put while the server runs; a minute keeps a restarted server's new port in reach.
const OPTIONS = { ...trpc.sandboxAddresses.queryOptions(), staleTime: 60_000 };

export function useSandboxAddresses(): SandboxAddresses | undefined {
  return useQuery(OPTIONS).data;
}

/**
 * What a new step needs to know (palette clicks and drops): at once from the cache, which
 * the palette fills when the editor opens; fetched first only when it is not there yet.
 */
export async function newStepContext(): Promise<NewStepContext> {
  const known = queryClient.getQueryData(OPTIONS.queryKey) ?? (await queryClient.ensureQueryData(OPTIONS).catch(() => undefined));
  return { sandboxSmtp: known?.smtp ?? null };
}
