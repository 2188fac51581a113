/**
 * http.request and message.post under the network policy, against real receivers on
 * loopback. Names resolve through a stub, so a refused address is never contacted and no
 * traffic leaves this machine; a name the stub points at 127.0.0.1 reaching the receiver
 * shows that the socket connects to the address that was checked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import { METADATA_SPELLINGS, stubResolver } from '../net/address-fixtures.ts';
import { createNetworkPolicy, type NetworkPolicy, type Resolver } from '../network-policy.ts';
import { createRenderer } from '../step-runtime.ts';
import { systemClock } from '../types.ts';
import { HttpFailure, sendHttp } from './http-client.ts';
import { httpRequestStep, type HttpAction } from './http-request.ts';
import { messagePostStep } from './message-post.ts';
import type { StepIO, StepOutcome } from './types.ts';

const render = createRenderer({ trigger: { body: {}, headers: {} }, steps: {}, secrets: {} }, systemClock);

function io(network: NetworkPolicy, key = 'order-4417'): StepIO {
  return { key, runId: 'run_test', flowId: 'flow_test', nodeId: 'step', now: () => Date.now(), signal: new AbortController().signal, services: { network } };
}

function httpAction(url: string, extra: Partial<HttpAction> = {}): HttpAction {
  return { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"ref":"r-1"}', timeoutMs: 2000, keyHeader: 'Idempotency-Key', ...extra };
}

function messageNode(url: string): TypedStep<'message.post'> {
  return { id: 'post', type: 'message.post', label: 'post', sideEffect: true, data: { url, text: 'Order shipped', receiverKeyHeader: 'Idempotency-Key', timeoutMs: 2000 } };
}

const callHttp = (network: NetworkPolicy, url: string, key?: string) => httpRequestStep.execute(httpAction(url), io(network, key));
const postMessage = (network: NetworkPolicy, url: string) => messagePostStep.execute(messagePostStep.prepare(messageNode(url), render), io(network));

/** "::ffff:a9fe:a9fe" → "[::ffff:a9fe:a9fe]" for a URL. */
const urlHost = (spelling: string) => (spelling.includes(':') && !spelling.startsWith('[') ? `[${spelling}]` : spelling);

function expectRefused(outcome: StepOutcome, pattern: RegExp) {
  expect(outcome.kind).toBe('failed');
  expect(outcome.kind === 'failed' && outcome.message).toMatch(pattern);
}

describe('http.request and message.post under the network policy', () => {
  let receiver: Receiver;
  let port: number;
  beforeAll(async () => {
    receiver = await startReceiver({ honoursKeys: true });
    port = Number(new URL(receiver.url).port);
  });
  beforeEach(() => receiver.reset());
  afterAll(async () => {
    await receiver?.close();
  });

  it('refuses every spelling of the metadata address, written in the URL or behind a name, and calls nothing', async () => {
    for (const spelling of METADATA_SPELLINGS.filter((text) => !text.includes('%'))) {
      const bare = spelling.replace(/^\[|\]$/g, '');
      const network = createNetworkPolicy({ resolve: stubResolver({ 'metadata.example.test': [bare] }) });
      for (const url of [`http://${urlHost(spelling)}:${port}/latest/meta-data/`, `http://metadata.example.test:${port}/latest/meta-data/`]) {
        expectRefused(await callHttp(network, url), /are refused: it is a link-local address, where cloud metadata services hand out credentials\. Nothing was sent\.$/);
        expectRefused(await postMessage(network, url), /are refused: it is a link-local address/);
      }
    }
    expect(receiver.calls).toHaveLength(0);
  });

  it('says which address a name stood for', async () => {
    const network = createNetworkPolicy({ resolve: stubResolver({ 'metadata.example.test': ['::ffff:169.254.169.254'] }) });
    expect(await callHttp(network, `http://metadata.example.test:${port}/`)).toEqual({
      kind: 'failed',
      message: 'Calls to metadata.example.test (::ffff:a9fe:a9fe, another way of writing 169.254.169.254) are refused: it is a link-local address, where cloud metadata services hand out credentials. Nothing was sent.',
    });
    expect(await callHttp(network, `http://0xa9fea9fe:${port}/`)).toEqual({
      kind: 'failed',
      message: 'Calls to 169.254.169.254 are refused: it is a link-local address, where cloud metadata services hand out credentials. Nothing was sent.',
    });
  });

  it('connects to the address the check saw: one resolution per connection, none left for a second answer', async () => {
    const answers = [['127.0.0.1'], ['169.254.169.254']];
    let resolutions = 0;
    const rebinding: Resolver = async () => answers[resolutions++ % answers.length]!;
    const network = createNetworkPolicy({ resolve: rebinding });
    const outcome = await callHttp(network, `http://receiver.example.test:${port}/invoices`);
    expect(outcome.kind).toBe('succeeded');
    expect(resolutions).toBe(1);
    expect(receiver.calls).toHaveLength(1);
    expect(receiver.calls[0]!.headers.host).toBe(`receiver.example.test:${port}`);
    // The next new connection resolves again and meets the second answer: refused.
    const other = await callHttp(network, `http://other.example.test:${port}/invoices`);
    expectRefused(other, /^Calls to other\.example\.test \(169\.254\.169\.254\) are refused/);
    expect(receiver.calls).toHaveLength(1);
  });

  it('on the loopback default, calls a receiver on 127.0.0.1 as before', async () => {
    const network = createNetworkPolicy();
    expect((await callHttp(network, `${receiver.url}/invoices`)).kind).toBe('succeeded');
    expect((await postMessage(network, `${receiver.url}/hook`)).kind).toBe('succeeded');
    expect(receiver.calls.map((call) => call.path)).toEqual(['/invoices', '/hook']);
    expect(receiver.calls[1]!.body).toEqual({ text: 'Order shipped' });
  });

  it('when exposed, refuses the receiver on loopback or behind a private name, until ONCEFLOW_HTTP_ALLOW names it', async () => {
    const resolve = stubResolver({ 'crm.internal.test': ['127.0.0.1'] });
    const exposed = createNetworkPolicy({ exposed: true, resolve });
    expectRefused(await callHttp(exposed, `${receiver.url}/invoices`), /^Calls to 127\.0\.0\.1 are refused: it is a loopback address, .* reachable from other machines/);
    expectRefused(await postMessage(exposed, `http://[::ffff:127.0.0.1]:${port}/hook`), /are refused: it is a loopback address/);
    expectRefused(await callHttp(exposed, `http://crm.internal.test:${port}/invoices`), /add crm\.internal\.test to ONCEFLOW_HTTP_ALLOW/);
    expect(receiver.calls).toHaveLength(0);

    const byAddress = createNetworkPolicy({ exposed: true, resolve, allow: '127.0.0.1' });
    expect((await callHttp(byAddress, `${receiver.url}/invoices`)).kind).toBe('succeeded');
    const byName = createNetworkPolicy({ exposed: true, resolve, allow: 'crm.internal.test' });
    expect((await postMessage(byName, `http://crm.internal.test:${port}/hook`)).kind).toBe('succeeded');
    expect(receiver.calls).toHaveLength(2);
  });

  it('sends a key a header cannot carry in its encoded form, and shows the value sent', async () => {
    const outcome = await callHttp(createNetworkPolicy(), `${receiver.url}/invoices`, 'Bestellung-Ü-4417-€');
    expect(outcome).toMatchObject({ kind: 'succeeded', output: { status: 200, sentKeyHeader: { name: 'Idempotency-Key', value: 'Bestellung-%C3%9C-4417-%E2%82%AC' } } });
    expect(receiver.calls[0]!.key).toBe('Bestellung-%C3%9C-4417-%E2%82%AC');
    const plain = await callHttp(createNetworkPolicy(), `${receiver.url}/invoices`, 'order-4417');
    expect(plain.kind === 'succeeded' && plain.output).not.toHaveProperty('sentKeyHeader');
  });

  it('answers every failure before the request left with an outcome, never a thrown error', async () => {
    const network = createNetworkPolicy({ resolve: stubResolver({}) });
    const closed = await startReceiver({ honoursKeys: false });
    const closedUrl = closed.url;
    await closed.close();

    const refusedConnection = await callHttp(network, `${closedUrl}/invoices`);
    expect(refusedConnection).toEqual({ kind: 'not_done', message: `The receiver at ${closedUrl}/invoices could not be reached (the connection was refused, ECONNREFUSED); nothing was sent.` });
    const unknownHost = await callHttp(network, `http://nowhere.example.test:${port}/`);
    expect(unknownHost.kind === 'not_done' && unknownHost.message).toContain('(no such host, ENOTFOUND); nothing was sent.');
    const badHeader = await httpRequestStep.execute(httpAction(`${receiver.url}/x`, { headers: { 'X-Price': '12 €' } }), io(network));
    expect(badHeader).toEqual({ kind: 'failed', message: expect.stringMatching(/^The header "X-Price" cannot be sent: .*Nothing was sent\.$/) });
    const badMethod = await httpRequestStep.execute(httpAction(`${receiver.url}/x`, { method: 'PO ST' }), io(network));
    expect(badMethod.kind === 'failed' && badMethod.message).toMatch(/^The request could not be written \(.*\); nothing was sent\.$/);
    await expect(sendHttp({ method: 'GET', url: new URL(receiver.url), headers: { 'x-a': 'line\nbreak' }, body: undefined, timeoutMs: 1000, signal: new AbortController().signal }, network))
      .rejects.toBeInstanceOf(HttpFailure);
    expect(receiver.calls).toHaveLength(0);
  });

  it('refuses headers that cannot be sent while preparing, before any key is claimed', () => {
    // Publishing refuses these names; the step still checks what it is given.
    const node: TypedStep<'http.request'> = { id: 'h', type: 'http.request', label: 'h', sideEffect: true, data: { receiverKeyHeader: 'Idempotency Key', request: { method: 'POST', url: 'http://127.0.0.1/' } } };
    expect(() => httpRequestStep.prepare(node, render)).toThrow(/^The key header name "Idempotency Key" cannot be sent/);
    const withHeader = { ...node, data: { request: { method: 'POST', url: 'http://127.0.0.1/', headers: { 'X-Note': 'a\r\nb' } } } };
    expect(() => httpRequestStep.prepare(withHeader, render)).toThrow(/^The header "X-Note" cannot be sent/);
    expect(() => messagePostStep.prepare({ ...messageNode('http://127.0.0.1/'), data: { url: 'http://127.0.0.1/', text: 'x', receiverKeyHeader: 'Key:' } }, render)).toThrow(/key header name "Key:"/);
  });
});
