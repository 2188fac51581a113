/**
 * Outside input that once produced a 500, each answered as the sender's mistake (4xx or
 * "no match") on both databases: deep JSON, form fields named like Object's own
 * properties, NUL bytes, run numbers beyond the column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { MAX_JSON_DEPTH } from '../engine/input-limits.ts';
import { hookUrl, startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { deepJson } from '../testing/hostile-values.ts';
import { postJson, postRaw } from '../testing/http-client.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { getRun } from '../store/runs.ts';

interface TrpcAnswer { status: number; message?: string; data?: unknown }

for (const kind of testDatabases()) {
  describe(`input limits on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let receiver: Receiver;
    let flowId: string;
    let url: string;

    async function trpc(path: string, input: unknown, method: 'GET' | 'POST' = 'GET'): Promise<TrpcAnswer> {
      const response = method === 'GET'
        ? await fetch(`${server.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`)
        : await fetch(`${server.url}/trpc/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
      const body = await response.json() as { result?: { data: unknown }; error?: { message: string } };
      return { status: response.status, message: body.error?.message, data: body.result?.data };
    }

    const rejections = async () => (await server.services.inbox.list(flowId)).rejections;

    beforeAll(async () => {
      database = await kind.create();
      receiver = await startReceiver({ honoursKeys: true });
      server = await startApp(database.url);
      ({ id: flowId } = await server.services.flows.import(webhookEffectFlow(receiver.url)));
      url = await hookUrl(server, flowId);
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await database?.drop();
    });

    it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400, listed as refused in the inbox`, async () => {
      // The outer object is one level: it holds `depth - 1` lists.
      const nested = (id: string, depth: number) => postRaw(url, `{"id": "${id}", "deep": ${deepJson(depth - 1)}}`);
      expect((await nested('evt_at_limit', MAX_JSON_DEPTH)).status).toBe(202);
      for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 100_000]) {
        const answer = await nested(`evt_deep_${depth}`, depth);
        expect(answer.status, `${depth} levels`).toBe(400);
        expect(String(answer.body.error)).toMatch(/nested too deeply/);
      }
      const refused = await rejections();
      expect(refused.filter((rejection) => /nested too deeply/.test(rejection.reason))).toHaveLength(3);
      expect(refused.every((rejection) => rejection.status === 400)).toBe(true);
      const runs = await server.services.db.all<{ event_id: string }>('SELECT event_id FROM runs WHERE flow_id = ?', [flowId]);
      expect(runs.map((run) => run.event_id)).toEqual(['evt_at_limit']);
    });

    it('refuses too deep input and flow documents over tRPC with 400 in plain words', async () => {
      for (const [path, body] of [
        ['runs.start', `{"flowId": "${flowId}", "input": ${deepJson(5_000)}}`],
        ['flows.saveDraft', `{"id": "${flowId}", "document": {"format": "onceflow/v1", "name": "x", "nodes": [], "edges": [], "sampleInput": ${deepJson(5_000)}}}`],
        ['flows.import', `{"document": ${deepJson(5_000, 'object')}}`],
      ]) {
        const response = await fetch(`${server.url}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const answer = await response.json() as { error?: { message: string } };
        expect(response.status, path).toBe(400);
        expect(answer.error?.message, path).toMatch(/nested too deeply: more than 100 levels/);
      }
    });

    it('keeps form fields named like Object\'s own properties as plain fields', async () => {
      const answer = await postRaw(url, 'id=evt_form&constructor=a&toString=b&hasOwnProperty=c&__proto__=d&valueOf=e&valueOf=f', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(answer.status).toBe(202);
      const run = await getRun(server.services.db, String(answer.body.runId));
      const body = (run?.input as { body: Record<string, unknown> }).body;
      expect(Object.entries(body)).toEqual([
        ['id', 'evt_form'], ['constructor', 'a'], ['toString', 'b'], ['hasOwnProperty', 'c'], ['__proto__', 'd'], ['valueOf', ['e', 'f']],
      ]);
      expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('answers a NUL byte in a webhook id or event id as the sender\'s mistake', async () => {
      const hookId = new URL(url).pathname.split('/').pop()!;
      for (const path of ['ab%00cd', `${hookId}%00`, '%00']) {
        expect((await postJson(`${server.url}/hooks/${path}`, { id: 'evt_1' })).status, path).toBe(404);
      }
      const answer = await postRaw(url, '{"id": "evt\\u0000nul"}');
      expect(answer.status).toBe(400);
      expect(String(answer.body.error)).toMatch(/control character/);
      expect((await rejections()).some((rejection) => /control character/.test(rejection.reason))).toBe(true);
      // The body may carry NUL anywhere else: it is stored as JSON text, escaped.
      expect((await postRaw(url, '{"id": "evt_nul_inside", "note": "a\\u0000b", "a\\u0000": 1}')).status).toBe(202);
    });

    it('finds runs by number, and answers numbers beyond the column and NUL in searches without a 500', async () => {
      const started = await trpc('runs.start', { flowId, input: { id: 'evt_numbered' } }, 'POST');
      const { seq } = started.data as { seq: number };
      const found = await trpc('runs.list', { search: `#${seq}` });
      expect((found.data as { runs: { seq: number }[] }).runs.map((run) => run.seq)).toEqual([seq]);

      for (const search of ['#99999999999999999999999', '99999999999999999999999', '#2147483648', '#4294967296']) {
        const answer = await trpc('runs.list', { search });
        expect(answer.status, search).toBe(200);
        expect((answer.data as { runs: unknown[] }).runs, search).toEqual([]);
      }
      const refusals: [string, unknown, RegExp][] = [
        ['runs.list', { search: 'evt\u0000' }, /The search contains a NUL character/],
        ['runs.list', { flowId: 'flow\u0000' }, /NUL character/],
        ['runs.list', { cursor: 2 ** 40 }, /No run number is larger than 2147483647/],
        ['runs.get', { runId: 'run\u0000' }, /The run id contains a NUL character/],
        ['runs.timeline', { runId: 'run\u0000' }, /NUL character/],
        ['flows.get', { id: 'flow\u0000' }, /The flow id contains a NUL character/],
        ['events.list', { flowId: 'flow\u0000' }, /NUL character/],
      ];
      for (const [path, input, message] of refusals) {
        const answer = await trpc(path, input);
        expect(answer.status, path).toBe(400);
        expect(answer.message, path).toMatch(message);
      }
      const named = await trpc('flows.create', { name: 'a\u0000b' }, 'POST');
      expect(named.status).toBe(400);
      const imported = await trpc('flows.import', { document: { ...webhookEffectFlow(receiver.url), name: 'Shop\u0000' } }, 'POST');
      expect(imported.status).toBe(400);
      expect(imported.message).toMatch(/The flow contains a NUL character \(at name\)/);
    });
  });
}
