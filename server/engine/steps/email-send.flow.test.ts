/**
 * An email flow on each database against a real mail server (smtp-server on loopback):
 * the same input twice, then a replay, sends exactly one email; the later runs show the
 * step as a duplicate of the first.
 *
 *   start (manual) ──► mail (email.send, key "welcome-{{ trigger.body.customer.id }}")
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { startEngine, type EngineHarness } from '../../testing/engine-harness.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import { closeEmailTransports } from './email-send.ts';

function welcomeFlow(port: number) {
  return {
    format: 'onceflow/v1',
    name: 'Welcome email',
    sampleInput: { customer: { id: 'c1', email: 'ann@example.test', name: 'Ann' } },
    nodes: [
      { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
      {
        id: 'mail', type: 'email.send', position: { x: 240, y: 0 },
        data: {
          label: 'Welcome email',
          key: 'welcome-{{ trigger.body.customer.id }}',
          smtp: { host: '127.0.0.1', port, secure: false },
          from: 'shop@example.test',
          to: '{{ trigger.body.customer.email }}',
          subject: 'Welcome, {{ trigger.body.customer.name }}',
          text: 'Hello {{ trigger.body.customer.name }}, your account is ready.',
          timeoutMs: 3000,
          retry: { max: 1, backoff: 'fixed', delayMs: 20 },
        },
      },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'mail' }],
  };
}

for (const kind of testDatabases()) {
  describe(`email.send flow on ${kind.name}`, () => {
    let database: TestDatabase;
    let engine: EngineHarness;
    let smtp: SMTPServer;
    let port: number;
    const received: string[] = [];

    beforeAll(async () => {
      database = await kind.create();
      engine = await startEngine(database.url);
      smtp = new SMTPServer({
        authOptional: true,
        disableReverseLookup: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, _session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            received.push(Buffer.concat(chunks).toString('utf8'));
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
      port = (smtp.server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await engine?.close();
      closeEmailTransports();
      await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
      await database?.drop();
    });

    it('sends one email for two runs and a replay of the same input; the others are duplicates', async () => {
      const flowId = await engine.publish(welcomeFlow(port));
      const input = { customer: { id: 'c-77', email: 'ann@example.test', name: 'Ann' } };
      const first = await engine.runAndWait(flowId, input);
      const second = await engine.runAndWait(flowId, input);
      const { runId: replayId } = await engine.services.runs.replay(first.id);
      const replay = await engine.waitForRun(replayId);

      expect([first.status, second.status, replay.status]).toEqual(['succeeded', 'succeeded', 'succeeded']);
      expect(received).toHaveLength(1);
      expect(received[0]).toContain('X-Onceflow-Key: welcome-c-77');
      expect(received[0]).toContain('Subject: Welcome, Ann');

      expect(await engine.eventTypes(first.id)).toContain('step.succeeded');
      for (const later of [second.id, replayId]) {
        const view = await engine.services.runs.get(later);
        const duplicate = view.timeline.find((event) => event.type === 'step.duplicate');
        expect(duplicate?.nodeId).toBe('mail');
        expect(duplicate?.data?.runId).toBe(first.id);
        expect(view.steps.find((step) => step.nodeId === 'mail')?.status).toBe('duplicate');
      }
      const firstOutput = (await engine.services.runs.get(first.id)).steps.find((step) => step.nodeId === 'mail')?.output as { messageId: string };
      expect(firstOutput.messageId).toMatch(/@example\.test>$/);
    });
  });
}
