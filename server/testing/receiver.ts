/**
 * A real HTTP receiver on loopback that counts effects per key, for tests and benchmarks.
 * `honoursKeys`: a repeated Idempotency-Key gets the first answer again and applies
 * nothing (like Stripe). Otherwise every call is an effect, counted by the body's `ref`.
 * `behave` decides per call: answer, answer with a status, act then drop the answer, act
 * then answer late, or act then answer when the test says so (`held`), for a test that
 * must do something while a step is acting however long that takes on a busy machine.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'ok' }
  /** Answers with the status (acting first when `act`); once `after` settles, when given. */
  | { kind: 'status'; status: number; act?: boolean; after?: Promise<unknown> }
  | { kind: 'drop' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'held'; until: Promise<unknown> };

export interface ReceivedCall {
  key: string | undefined;
  ref: string | undefined;
  body: unknown;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface Receiver {
  url: string;
  calls: ReceivedCall[];
  /** Effects applied per key (honouring) or per body ref (not honouring). */
  effects: Map<string, number>;
  behave: (call: ReceivedCall, callNumber: number) => Behaviour;
  /** Called whenever a call arrives, before answering (e.g. to kill a process). */
  onCall?: (call: ReceivedCall) => void;
  /** The most calls it was answering at the same moment since the last reset. */
  maxInFlight: number;
  totalEffects(): number;
  reset(): void;
  close(): Promise<void>;
}

/** The whole body of a request as text. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startReceiver(options: { honoursKeys: boolean; keyHeader?: string }): Promise<Receiver> {
  const keyHeader = (options.keyHeader ?? 'idempotency-key').toLowerCase();
  const answers = new Map<string, unknown>();
  let server: Server;
  const receiver: Receiver = {
    url: '',
    calls: [],
    effects: new Map(),
    maxInFlight: 0,
    behave: () => ({ kind: 'ok' }),
    totalEffects: () => [...receiver.effects.values()].reduce((sum, count) => sum + count, 0),
    reset() {
      receiver.calls.length = 0;
      receiver.effects.clear();
      receiver.maxInFlight = 0;
      answers.clear();
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };

  let inFlight = 0;
  server = createServer(async (request, response) => {
    inFlight++;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, inFlight);
    response.on('close', () => inFlight--);
    const text = await readBody(request);
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* plain text body */ }
    const key = request.headers[keyHeader] as string | undefined;
    const ref = (body as { ref?: string } | null)?.ref;
    const call: ReceivedCall = { key, ref, body, method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers };
    receiver.calls.push(call);
    receiver.onCall?.(call);
    const behaviour = receiver.behave(call, receiver.calls.length);
    if (behaviour.kind === 'status' && behaviour.after) await behaviour.after;

    if (behaviour.kind === 'status' && !behaviour.act) {
      response.writeHead(behaviour.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `status ${behaviour.status}` }));
      return;
    }
    let answer: unknown;
    if (options.honoursKeys && key !== undefined && answers.has(key)) {
      answer = answers.get(key);
    } else {
      const counted = options.honoursKeys ? key : ref;
      const effectKey = counted ?? '(none)';
      receiver.effects.set(effectKey, (receiver.effects.get(effectKey) ?? 0) + 1);
      answer = { id: `obj_${receiver.effects.size}_${receiver.calls.length}`, ref: ref ?? null, key: key ?? null };
      if (options.honoursKeys && key !== undefined) answers.set(key, answer);
    }
    if (behaviour.kind === 'drop') {
      request.socket.destroy();
      return;
    }
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (behaviour.kind === 'held') await behaviour.until;
    if (behaviour.kind === 'status') {
      response.writeHead(behaviour.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `status ${behaviour.status}` }));
      return;
    }
    if (!response.destroyed) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
