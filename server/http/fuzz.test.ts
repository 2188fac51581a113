/**
 * No outside input may produce a 500 (DESIGN.md §10). A seeded fuzz over `/hooks/*` and
 * every tRPC procedure — enumerated from appRouter, so a new procedure is fuzzed without
 * a change here — on both databases: every answer is below 500, and afterwards the
 * server is healthy and still accepts a normal webhook. Each failure prints what was
 * sent; run again with FUZZ_SEED=<seed> to repeat a case.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunningServer } from '../app.ts';
import { listTemplates } from '../gallery/gallery.ts';
import { appRouter } from '../trpc/router.ts';
import { hookUrl, startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import {
  deepJson, draw, hostileJson, hostileJsonTexts, HOSTILE_NUMBERS, HOSTILE_STRINGS, INVALID_UTF8, ODD_CONTENT_TYPES, type Draw,
} from '../testing/hostile-values.ts';
import { postJson } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_241_130);
// Thousands of requests: seconds on an idle machine, much longer on a busy one.
const FUZZ_TIMEOUT_MS = 180_000;
const TRPC_CASES_PER_PROCEDURE = 12;
const HOOK_CASES = 240;

interface Answer { status: number; text: string }

/** One request on a fresh connection, raw bytes in and out, so nothing is normalised. */
function send(base: string, method: string, path: string, body?: Buffer | string, headers: Record<string, string | undefined> = {}): Promise<Answer> {
  const url = new URL(base);
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve) => {
    const request = http.request({ host: url.hostname, port: url.port, method, path, headers: sent, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8').slice(0, 300) }));
      response.on('error', (error) => resolve({ status: 0, text: `answer broken off: ${error.message}` }));
    });
    // A dropped connection is no answer at all: reported like a 5xx, with what was sent.
    request.on('error', (error) => resolve({ status: 0, text: `connection dropped: ${error.message}` }));
    request.end(body);
  });
}

const describeSent = (value: string | Buffer | undefined) =>
  value === undefined ? '(none)' : Buffer.isBuffer(value) ? `bytes ${value.subarray(0, 60).toString('hex')}…(${value.length})` : `${JSON.stringify(value.slice(0, 120))}…(${value.length})`;

type FieldSpec = { enum?: unknown[]; type?: unknown };

/** Field names, enums and types of a procedure's input, from its own schema. */
function inputFields(schema: unknown): Map<string, FieldSpec> {
  const fields = new Map<string, FieldSpec>();
  if (!schema) return fields;
  const json = z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any', io: 'input' }) as {
    properties?: Record<string, FieldSpec>;
    anyOf?: { properties?: Record<string, FieldSpec> }[];
  };
  const properties = json.properties ?? json.anyOf?.find((option) => option.properties)?.properties ?? {};
  for (const [name, property] of Object.entries(properties)) fields.set(name, property);
  return fields;
}

for (const kind of testDatabases()) {
  describe(`no outside input produces a 5xx on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;
    const known: Record<string, string[]> = {};

    /** Real flows, a run and a delivery, so plausible ids reach real rows (a fuzzed delete may remove them). */
    async function seedFixtures(): Promise<void> {
      await server.services.secrets.set('FUZZ_SECRET', 'whsec_' + Buffer.from('fuzz-signing-key-of-32-bytes-ok!').toString('base64'));
      const plain = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const signed = await server.services.flows.import(webhookEffectFlow(receiver.url, { signature: { scheme: 'standard-webhooks', secret: 'FUZZ_SECRET' } }));
      const delivered = await postJson(await hookUrl(server, plain.id), { id: `evt_seed_${Date.now()}` });
      const inbox = await server.services.inbox.list(plain.id);
      known.hooks = [await hookUrl(server, plain.id), await hookUrl(server, signed.id)].map((url) => new URL(url).pathname.split('/').pop()!);
      known.flow = [plain.id, signed.id];
      known.run = [String(delivered.body.runId)];
      known.node = ['hook', 'effect'];
      known.event = inbox.deliveries.map((delivery) => delivery.id);
      known.template = listTemplates().map((template) => template.id);
      known.secret = ['FUZZ_SECRET'];
    }

    beforeAll(async () => {
      database = await kind.create();
      receiver = await startReceiver({ honoursKeys: true });
      server = await startApp(database.url);
      await seedFixtures();
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it(`answers every hostile webhook delivery below 500 (seed ${SEED})`, async () => {
      const d = draw(SEED);
      const failures: string[] = [];
      const hookPaths = (): string => d.pick([
        ...known.hooks!, ...known.hooks!, '%00', 'ab%00cd', `${known.hooks![0]}%00`, 'x'.repeat(99), 'x'.repeat(101), 'x'.repeat(5_000),
        '..%2f..%2fhealthz', '%ZZ', '%C0%AF', '%F0%9F%98%80', '%ED%A0%80', ';x', '%20', 'a%2Fb',
      ]);
      const bodies = (): Buffer | string => {
        switch (d.int(5)) {
          case 0: return `{"id": "evt_${d.int(1e9)}", "value": ${d.pick(hostileJsonTexts())}}`;
          case 1: return `{"id": ${hostileJson(d)}, ${JSON.stringify(d.pick(HOSTILE_STRINGS))}: ${hostileJson(d)}}`;
          case 2: return d.pick(INVALID_UTF8);
          case 3: return d.pick(['id=1&constructor=a&toString=b&hasOwnProperty=c&__proto__=d&__proto__[x]=1', '%zz=%zz&&==&a=%00', 'id=%00', `id=${'x'.repeat(300)}`, 'a'.repeat(10_000)]);
          default: return JSON.stringify({ id: `evt_${d.int(1e9)}`, n: d.pick(HOSTILE_NUMBERS), s: d.pick(HOSTILE_STRINGS) });
        }
      };
      const signatureHeaders = (): Record<string, string> => d.chance(0.5) ? {} : {
        'webhook-id': d.pick(['msg_1', 'x'.repeat(3_000), '%00', '😀'].map((value) => encodeURIComponent(value))),
        'webhook-timestamp': d.pick(['99999999999999999999999', '-1', '1e23', 'NaN', String(Math.floor(Date.now() / 1000))]),
        'webhook-signature': d.pick(['v1,', 'v1,' + 'A'.repeat(5_000), 'v1,!!!', ' ', 'v2,abc v1,abc']),
      };

      // Every known hole first, on both hooks; then random combinations.
      const fixed: [string, Buffer | string, string | undefined][] = [];
      for (const hook of known.hooks!) {
        for (const depth of [100, 5_000, 50_000]) {
          for (const shape of ['list', 'object'] as const) fixed.push([hook, `{"id": "evt_deep_${depth}_${shape}", "deep": ${deepJson(depth, shape)}}`, 'application/json']);
        }
        fixed.push(
          [hook, '{"id": "a\\u0000b"}', 'application/json'],
          [hook, '{"id": "evt_nul", "note": "a\\u0000b", "a\\u0000": 1}', 'application/json'],
          [hook, '{"id": 99999999999999999999999, "n": 1e999}', 'application/json'],
          [hook, '{"id": "evt_proto", "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}', 'application/json'],
          [hook, 'id=evt_form&constructor=a&toString=b&hasOwnProperty=c&__proto__=d&__proto__[polluted]=1', 'application/x-www-form-urlencoded'],
          [hook, 'id=%00&x=%00', 'application/x-www-form-urlencoded'],
          ...INVALID_UTF8.map((bytes): [string, Buffer, string] => [hook, bytes, 'application/json']),
        );
      }
      for (const path of ['%00', 'ab%00cd', `${known.hooks![0]}%00`]) fixed.push([path, '{"id": "evt_1"}', 'application/json']);
      for (let index = 0; index < HOOK_CASES; index++) {
        fixed.push([hookPaths(), bodies(), d.chance(0.7) ? d.pick(['application/json', 'application/x-www-form-urlencoded']) : d.pick(ODD_CONTENT_TYPES)]);
      }

      for (const [index, [hook, body, contentType]] of fixed.entries()) {
        const path = `/hooks/${hook}`;
        const method = index < fixed.length - HOOK_CASES || d.chance(0.95) ? 'POST' : d.pick(['GET', 'PUT', 'OPTIONS']);
        const answer = await send(server.url, method, path, body, { 'content-type': contentType, ...signatureHeaders() });
        if (answer.status >= 500 || answer.status === 0) {
          failures.push(`#${index} ${method} ${path} content-type ${JSON.stringify(contentType)} body ${describeSent(body)} → ${answer.status} ${answer.text}`);
        }
      }
      expect(failures).toEqual([]);
    }, FUZZ_TIMEOUT_MS);

    it(`answers every hostile tRPC input below 500, for every procedure (seed ${SEED})`, async () => {
      const d = draw(SEED + 1);
      const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; inputs: unknown[] } }> } })._def.procedures);
      expect(procedures.length).toBeGreaterThan(30);
      // Plausible values for known fields, so hostile ones land next to valid ones and reach the queries.
      const plausible = (field: string, spec: FieldSpec): unknown => {
        if (spec.enum) return d.pick(spec.enum);
        if (/^(flowId|id)$/.test(field)) return d.pick(known.flow!);
        if (field === 'runId') return d.pick(known.run!);
        if (field === 'nodeId') return d.pick(known.node!);
        if (field === 'eventId') return d.pick(known.event!);
        if (field === 'templateId') return d.pick(known.template!);
        if (field === 'name') return d.pick(known.secret!);
        if (field === 'document') return webhookEffectFlow(receiver.url);
        if (field === 'input') return { id: `evt_${d.int(1e9)}` };
        if (spec.type === 'integer' || spec.type === 'number') return d.int(50);
        if (spec.type === 'boolean') return d.chance(0.5);
        return d.pick(['x', 'Fuzzed', '#1']);
      };
      const holes = [
        deepJson(5_000), deepJson(5_000, 'object'), deepJson(2_000), '"a\\u0000b"', '{"a\\u0000": 1}', '"#99999999999999999999999"',
        '1e23', '-1', '2147483648', `"${'x'.repeat(5_000)}"`, '{"__proto__": {"polluted": true}}',
      ];
      const failures: string[] = [];

      for (const [path, procedure] of procedures) {
        await seedFixtures();
        const fields = [...inputFields(procedure._def.inputs[0])];
        const values = new Map(fields.map(([field, spec]) => [field, plausible(field, spec)]));
        /** The plausible input with `replace` deciding some fields' JSON text. */
        const input = (replace: (field: string, spec: FieldSpec) => string | undefined) =>
          `{${fields.map(([field, spec]) => `${JSON.stringify(field)}: ${replace(field, spec) ?? JSON.stringify(values.get(field))}`).join(', ')}}`;
        const inputs: string[] = [];
        for (const hole of holes) {
          if (fields.length === 0) { inputs.push(hole); continue; }
          // Every field at once; each field alone; inside each field's object value, each key alone.
          inputs.push(input(() => hole));
          for (const [target] of fields) {
            inputs.push(input((field) => (field === target ? hole : undefined)));
            const value = values.get(target);
            if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
            for (const key of Object.keys(value)) {
              const inner = `{${Object.entries(value).map(([name, item]) => `${JSON.stringify(name)}: ${name === key ? hole : JSON.stringify(item)}`).join(', ')}}`;
              inputs.push(input((field) => (field === target ? inner : undefined)));
            }
          }
        }
        for (let index = 0; index < TRPC_CASES_PER_PROCEDURE; index++) {
          if (fields.length === 0 || d.chance(0.15)) { inputs.push(hostileJson(d)); continue; }
          const random = input(() => (d.chance(0.4) ? hostileJson(d) : undefined));
          inputs.push(d.chance(0.2) ? `${random.slice(0, -1)}, "__proto__": ${hostileJson(d)}}` : random);
        }
        for (const [index, input] of inputs.entries()) {
          const query = procedure._def.type === 'query';
          const answer = query
            ? await send(server.url, 'GET', `/trpc/${path}?input=${encodeURIComponent(input)}`)
            : await send(server.url, 'POST', `/trpc/${path}`, input, { 'content-type': 'application/json' });
          if (answer.status >= 500 || answer.status === 0) failures.push(`${path} #${index} input ${describeSent(input)} → ${answer.status} ${answer.text}`);
        }
        // The transport itself: bodies that are not JSON, odd content types, the wrong method, batches.
        const raw: [string, string, Buffer | string | undefined, string | undefined][] = [
          ['POST', `/trpc/${path}`, d.pick(INVALID_UTF8), 'application/json'],
          ['POST', `/trpc/${path}`, '{"id": ', d.pick(ODD_CONTENT_TYPES)],
          ['POST', `/trpc/${path}`, d.pick(hostileJsonTexts([5_000])), 'application/json'],
          [procedure._def.type === 'query' ? 'POST' : 'GET', `/trpc/${path}?input=%7B%7D`, undefined, undefined],
          ['GET', `/trpc/${path}?batch=1&input=${encodeURIComponent(`{"0": ${hostileJson(d)}, "1": ${hostileJson(d)}}`)}`, undefined, undefined],
          ['GET', `/trpc/${path}?input=%ZZ`, undefined, undefined],
        ];
        for (const [method, url, body, contentType] of raw) {
          const answer = await send(server.url, method, url, body, { 'content-type': contentType });
          if (answer.status >= 500 || answer.status === 0) failures.push(`${method} ${url.slice(0, 120)} body ${describeSent(body)} (${contentType}) → ${answer.status} ${answer.text}`);
        }
      }
      expect(failures).toEqual([]);
    }, FUZZ_TIMEOUT_MS);

    it('is healthy afterwards and still accepts a normal webhook', async () => {
      const health = await send(server.url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(JSON.parse(health.text)).toMatchObject({ ok: true });
      const { id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url));
      const answer = await postJson(await hookUrl(server, flowId), { id: 'evt_after_fuzz' });
      expect(answer.status).toBe(202);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
}
