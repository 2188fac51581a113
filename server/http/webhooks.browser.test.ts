/**
 * A webhook address opened in a browser (GET, HEAD) over real HTTP on each database: a real
 * address says it is right and waits for POST, an unknown one says no webhook has it, and
 * neither starts a run, counts a refusal or gives away the flow or its signing secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp } from '../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const SECRET_VALUE = 'whsec_browser-page-never-shows-this';

for (const kind of testDatabases()) {
  describe(`a webhook address opened in a browser on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;
    let url: string;

    async function counts() {
      const db = server.services.db;
      const runs = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM runs');
      const events = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM inbound_events');
      const refusals = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_rejections');
      return { runs: Number(runs?.n), events: Number(events?.n), refusals: Number(refusals?.n) };
    }

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
      await server.services.secrets.set('BROWSER_HOOK_SECRET', SECRET_VALUE);
      const flow = webhookEffectFlow('http://127.0.0.1:9', { signature: { scheme: 'hmac-sha256', secret: 'BROWSER_HOOK_SECRET', header: 'x-signature' } });
      const { id } = await server.services.flows.import({ ...flow, name: 'Orders from the shop' });
      url = await hookUrl(server, id);
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    it('answers a browser on a real address with a page saying it is right and expects POST', async () => {
      const before = await counts();
      const response = await fetch(url, { headers: BROWSER });
      const page = await response.text();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(page).toContain('<h1>This webhook address is right</h1>');
      expect(page).toMatch(/only takes deliveries sent with POST/);
      expect(page).not.toContain('Not found');
      for (const hidden of [SECRET_VALUE, 'BROWSER_HOOK_SECRET', 'Orders from the shop', 'x-signature']) expect(page).not.toContain(hidden);
      expect(await counts()).toEqual(before);
    });

    it('answers a program on a real address with JSON that says the same', async () => {
      const response = await fetch(url, { headers: { accept: 'application/json' } });
      const body = (await response.json()) as { error: string; expects: string };
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(body.expects).toBe('POST');
      expect(body.error).toMatch(/^This is a Onceflow webhook address, and it is the right one\./);
      expect(JSON.stringify(body)).not.toContain(SECRET_VALUE);
    });

    it('answers HEAD like GET, without a body', async () => {
      const response = await fetch(url, { method: 'HEAD', headers: BROWSER });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.text()).toBe('');
    });

    it('tells a sender set to PUT, PATCH or DELETE to use POST, and starts nothing', async () => {
      const before = await counts();
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const response = await fetch(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"id":"evt_put"}' });
        const body = (await response.json()) as { error: string; expects: string };
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(body.expects).toBe('POST');
        expect(body.error).toContain(`This request was sent with ${method}, which starts nothing: set the sender to POST.`);
        expect(body.error).not.toContain('browser');
      }
      const unknown = await fetch(`${server.url}/hooks/${'y'.repeat(32)}`, { method: 'PUT', headers: { accept: 'application/json' } });
      expect(unknown.status).toBe(404);
      // Past the delivery size limit it is still the wrong method, not a refused delivery.
      const large = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: `{"id":"evt_big","pad":"${'x'.repeat(1536 * 1024)}"}` });
      expect(large.status).toBe(405);
      expect(((await large.json()) as { error: string }).error).toContain('This request was sent with PUT');
      expect(await counts()).toEqual(before);
    });

    it('answers the address with a slash at its end as the same webhook', async () => {
      const page = await fetch(`${url}/`, { headers: BROWSER });
      expect(page.status).toBe(405);
      expect(await page.text()).toContain('<h1>This webhook address is right</h1>');
      // Signed flow, unsigned delivery: refused as unsigned, which only a known webhook does.
      expect((await postJson(`${url}/`, { id: 'evt_slash' })).status).toBe(401);
      expect((await fetch(`${server.url}/hooks/${'x'.repeat(32)}/`, { headers: BROWSER })).status).toBe(404);
    });

    it('says in plain words that an unknown address has no webhook, for browsers and programs', async () => {
      const before = await counts();
      const unknown = `${server.url}/hooks/${'x'.repeat(32)}`;
      const page = await fetch(unknown, { headers: BROWSER });
      expect(page.status).toBe(404);
      expect(page.headers.get('allow')).toBeNull();
      expect(await page.text()).toContain('<h1>No webhook has this address</h1>');
      const json = await fetch(unknown, { headers: { accept: 'application/json' } });
      expect(json.status).toBe(404);
      expect(((await json.json()) as { error: string }).error).toMatch(/^No webhook has this address\. Check it against/);
      const odd = await fetch(`${server.url}/hooks/%3Cscript%3E`, { headers: BROWSER });
      expect(odd.status).toBe(404);
      expect(await odd.text()).not.toContain('<script>');
      expect(await counts()).toEqual(before);
    });

    it('still takes deliveries on the same address with POST', async () => {
      const answer = await postJson(url, { id: 'evt_browser' });
      // Signed flow, unsigned delivery: refused as unsigned, not as an unknown address.
      expect(answer.status).toBe(401);
    });
  });
}
