// The web app's only link to the server: the router's type, and TanStack Query options
// built from it. Server data lives in the query cache, never in zustand.
import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../../server/trpc/router.ts';

export const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 1000, retry: 1, refetchOnWindowFocus: false } },
});

export const trpcClient = createTRPCClient<AppRouter>({
  // Subscriptions stream over server-sent events; everything else is batched.
  links: [
    splitLink({
      condition: (operation) => operation.type === 'subscription',
      true: httpSubscriptionLink({ url: '/trpc' }),
      false: httpBatchLink({ url: '/trpc' }),
    }),
  ],
});

export const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
