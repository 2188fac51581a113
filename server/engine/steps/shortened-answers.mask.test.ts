/**
 * A step shortens what a receiver said before it is stored. A secret cut in half by that
 * is no longer recognisable later, so steps hide secrets before cutting.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMasker } from '../secrets/masker.ts';
import { createNetworkPolicy } from '../network-policy.ts';
import { httpRequestStep } from './http-request.ts';
import type { StepIO } from './types.ts';

const SECRET = 'tok_live_"quoted\\slash_Grüße';

describe('answers shortened by a step', () => {
  let server: Server;
  let url: string;
  const masker = createMasker([SECRET]);
  const io: StepIO = {
    key: 'order-1', runId: 'run_test', flowId: 'flow_test', nodeId: 'step', now: () => Date.now(), signal: new AbortController().signal,
    services: { network: createNetworkPolicy(), mask: (text) => masker.text(text) },
  };

  beforeAll(async () => {
    // The secret straddles every cut a step makes (200 and 300 characters) in turn.
    server = createServer((request, response) => {
      const pad = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('pad'));
      response.writeHead(422, { 'content-type': 'text/plain' }).end(`${'x'.repeat(pad)}${SECRET} was not accepted`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('hides a secret echoed across the cut of an HTTP answer', async () => {
    for (const pad of [280, 290, 295, 299]) {
      const outcome = await httpRequestStep.execute({ method: 'POST', url: `${url}/?pad=${pad}`, headers: {}, body: '{}', timeoutMs: 2000, keyHeader: undefined }, io);
      expect(outcome.kind).toBe('failed');
      const stored = JSON.stringify(outcome);
      expect(stored).not.toContain(SECRET.slice(0, 5));
    }
  });
});
