/**
 * The receivers that honour nothing (CRM, chat, the mail server) over real sockets: every
 * arrival is an effect, the person's settings apply, and the ledger can be read back.
 */
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxApp, type SandboxApp } from '../testing/sandbox-app.ts';
import type { Sandbox } from './plugin.ts';
import { readEmail } from './smtp.ts';

describe('sandbox receivers that honour nothing', () => {
  let served: SandboxApp;
  let sandbox: Sandbox;
  let base: string;

  beforeAll(async () => {
    served = await startSandboxApp({ smtp: true });
    ({ sandbox, base } = served);
  });
  beforeEach(() => {
    sandbox.reset();
    sandbox.settings.reset();
  });
  afterAll(async () => {
    await served?.close();
  });

  const post = (path: string, body: string, type = 'application/json', headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });

  it('creates a CRM contact each time, even with the same key', async () => {
    const first = await post('/crm/contacts', JSON.stringify({ ref: 'c-1', email: 'ann@example.test' }), 'application/json', { 'idempotency-key': 'k' });
    const second = await post('/crm/contacts', JSON.stringify({ ref: 'c-1', email: 'ann@example.test' }), 'application/json', { 'idempotency-key': 'k' });
    expect(first.status).toBe(201);
    const [a, b] = [(await first.json()) as { id: string }, (await second.json()) as { id: string }];
    expect(a.id).toMatch(/^ct_/);
    expect(b.id).not.toBe(a.id);
    const record = await post('/crm/records', JSON.stringify({ ref: 'r-1' }));
    expect(((await record.json()) as { id: string }).id).toMatch(/^rec_/);
    const invoice = await post('/crm/invoices', JSON.stringify({ invoice: 'in_1', status: 'paid' }));
    expect(await invoice.json()).toMatchObject({ object: 'invoice', invoice: 'in_1', status: 'paid' });
    expect((await post('/crm/Bad%20Name', '{}')).status).toBe(404);
    expect(sandbox.ledger.summary('crm')).toMatchObject({ arrivals: 4, effects: 4, duplicated: 1 });
    expect(sandbox.ledger.entries('crm').map((entry) => entry.kind)).toEqual(['contact', 'contact', 'record', 'invoice']);
  });

  it('posts chat messages like a Slack incoming webhook', async () => {
    const ok = await post('/chat/messages', JSON.stringify({ text: 'Order 4417 paid' }));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('ok');
    const form = await post('/chat/messages', `payload=${encodeURIComponent(JSON.stringify({ text: 'From a form' }))}`, 'application/x-www-form-urlencoded');
    expect(form.status).toBe(200);
    const empty = await post('/chat/messages', JSON.stringify({ text: ' ' }));
    expect(empty.status).toBe(400);
    expect(await empty.text()).toBe('no_text');
    expect(sandbox.ledger.effects('chat').map((entry) => (entry.data as { text: string }).text)).toEqual(['Order 4417 paid', 'From a form']);
  });

  it('applies latency and simulated failures to each receiver on its own', async () => {
    sandbox.settings.configure('crm', { failureRate: 1 });
    sandbox.settings.configure('chat', { latencyMs: 150 });
    expect((await post('/crm/contacts', '{}')).status).toBe(500);
    const started = Date.now();
    expect((await post('/chat/messages', JSON.stringify({ text: 'slow' }))).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sandbox.ledger.summary('crm')).toMatchObject({ arrivals: 1, effects: 0 });
  });

  it('records emails with their key and Message-ID, answers 451 when asked to fail, and lists them', async () => {
    const smtp = sandbox.smtp!;
    const transport = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, auth: { user: 'any', pass: 'thing' } });
    try {
      await transport.sendMail({ from: 'shop@example.test', to: 'ann@example.test', subject: 'Hello', text: 'Hi Ann', headers: { 'X-Onceflow-Key': 'welcome-1' }, messageId: '<m1@example.test>' });
      sandbox.settings.configure('email', { failureRate: 1 });
      await expect(transport.sendMail({ from: 'shop@example.test', to: 'bob@example.test', subject: 'Again', text: '…' })).rejects.toMatchObject({ responseCode: 451 });
    } finally {
      transport.close();
    }
    expect(sandbox.ledger.summary('email')).toMatchObject({ arrivals: 2, effects: 1, references: [{ reference: 'welcome-1', effects: 1 }, { effects: 0 }] });
    const listed = (await (await fetch(`${base}/email/messages`)).json()) as { messages: Array<Record<string, unknown>> };
    expect(listed.messages[0]).toMatchObject({ key: 'welcome-1', messageId: '<m1@example.test>', from: 'shop@example.test', to: ['ann@example.test'], subject: 'Hello', outcome: 'created' });
    const index = (await (await fetch(base)).json()) as { smtp: { port: number } };
    expect(index.smtp.port).toBe(smtp.port);
  });

  it('reads folded headers of a raw message', () => {
    const email = readEmail('Subject: A long\r\n subject\r\nX-Onceflow-Key: k-1\r\nMessage-ID: <a@b>\r\n\r\nBody', { from: 'a@x', to: ['b@x'] });
    expect(email).toMatchObject({ subject: 'A long subject', key: 'k-1', messageId: '<a@b>', body: 'Body' });
  });
});
