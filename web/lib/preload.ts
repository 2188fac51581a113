/**
 * The session check and the flow of an editor URL start loading in index.html, before
 * this app's code has arrived and run; here those answers are handed over, so opening a
 * flow does not wait for the code first and the server after. Any trouble with an early
 * answer (an error, a login needed) falls back to the ordinary request, with its usual
 * errors.
 */
import { queryClient, trpc, trpcClient } from './trpc.ts';

interface EarlyFlow {
  id: string;
  response: Promise<Response | null>;
}

declare global {
  interface Window {
    __onceflowFlow?: EarlyFlow;
    __onceflowSession?: Promise<Response | null>;
  }
}

/** The answer of GET /auth/session, asked early when the page loaded, else now. */
export async function fetchSession(): Promise<Response> {
  const early = window.__onceflowSession;
  delete window.__onceflowSession;
  const response = await early;
  return response?.ok ? response : fetch('/auth/session');
}

type FlowAnswer = Awaited<ReturnType<typeof trpcClient.flows.get.query>>;

const adopted = new Set<string>();

export function adoptEarlyFlow(): void {
  const early = window.__onceflowFlow;
  if (!early) return;
  delete window.__onceflowFlow;
  adopted.add(early.id);
  void queryClient.prefetchQuery({
    queryKey: trpc.flows.get.queryKey({ id: early.id }),
    queryFn: async (): Promise<FlowAnswer> => {
      const response = await early.response;
      if (response?.ok) {
        const body = (await response.json().catch(() => null)) as { result?: { data?: FlowAnswer } } | null;
        if (body?.result?.data) return body.result.data;
      }
      return trpcClient.flows.get.query({ id: early.id });
    },
  });
}

/** True once for a flow whose answer came early: the editor need not ask again. */
export function takeEarlyFlow(id: string): boolean {
  return adopted.delete(id);
}
