/**
 * Prove it on each database, with real probe processes stopped by SIGKILL: the gallery's
 * templates pass every check, and flows built to fail one check fail it with the sentence
 * that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../app.ts';
import { loadTemplates, withBaseUrl } from '../../gallery/gallery.ts';
import { startApp } from '../../testing/app-harness.ts';
import { testDatabases, type TestDatabase } from '../../testing/databases.ts';
import type { ProofCheckId, ProofReport } from './proof-report.ts';

const PROOF_LIMIT_MS = 60_000;

for (const kind of testDatabases()) {
  describe(`Prove it on ${kind.name}`, () => {
    let database: TestDatabase;
    let server: RunningServer;

    beforeAll(async () => {
      database = await kind.create();
      server = await startApp(database.url);
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    async function prove(document: unknown): Promise<ProofReport> {
      const { id } = await server.services.flows.import(document);
      const { proofId } = await server.services.proofs.start(id);
      const deadline = Date.now() + PROOF_LIMIT_MS;
      for (;;) {
        const report = await server.services.proofs.get(proofId);
        if (report.status !== 'running') return report;
        if (Date.now() > deadline) throw new Error(`the proof is still running: ${JSON.stringify(report.progress)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const check = (report: ProofReport, id: ProofCheckId) => report.checks.find((candidate) => candidate.check === id)!;
    const failedSentences = (report: ProofReport, id: ProofCheckId) => check(report, id).steps.filter((step) => !step.passed).map((step) => step.sentence);

    /** A manual trigger and one side-effect step with the given settings; the stand-ins receive it. */
    function oneStep(name: string, step: Record<string, unknown>, type = 'http.request') {
      return {
        format: 'onceflow/v1', name, sampleInput: { order: { id: '4417', total: 120 } },
        nodes: [
          { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
          { id: 'act', type, position: { x: 200, y: 0 }, data: {
            label: 'Create invoice', sideEffect: true, receiverKeyHeader: 'Idempotency-Key',
            request: { method: 'POST', url: 'http://127.0.0.1:9/invoices', body: '{"order": "{{ trigger.body.order.id }}"}' }, ...step,
          } },
        ],
        edges: [{ id: 'e1', source: 'start', target: 'act' }],
      };
    }

    it('fails a constant key in the key check, saying every run would collide', async () => {
      const report = await prove(oneStep('constant key', { key: 'invoice' }));
      expect(report.status).toBe('failed');
      expect(failedSentences(report, 'keys')).toEqual([expect.stringContaining('“Create invoice”: its key is the same for every run')]);
      expect(check(report, 'twice').passed).toBe(true);
    }, PROOF_LIMIT_MS);

    it('fails a key from the time: two runs of one input act twice, and the sentence says the key comes from the attempt', async () => {
      const report = await prove(oneStep('time key', { key: '{{ trigger.body.order.id }}-{{ now }}' }));
      expect(report.status).toBe('failed');
      expect(failedSentences(report, 'twice')).toEqual([expect.stringMatching(/“Create invoice” acted 2 times for the same input run twice\. Its key changed from 4417-.* to 4417-.*: it comes from the attempt/)]);
      expect(failedSentences(report, 'keys')[0]).toContain('changes on every attempt');
    }, PROOF_LIMIT_MS);

    it('fails a key that renders the same for two different samples, naming both', async () => {
      const report = await prove({
        ...oneStep('colliding key', { key: '{{ trigger.body.order.total }}:invoice' }),
        samples: [{ name: 'order 4418', input: { order: { id: '4418', total: 120 } } }, { name: 'refund', input: { order: { id: '4419', total: 75 } } }],
      });
      expect(report.status).toBe('failed');
      expect(failedSentences(report, 'keys')).toEqual([expect.stringContaining('its key renders 120:invoice for both the sample “Sample input” and the sample “order 4418”: two different events would share one key')]);
    }, PROOF_LIMIT_MS);

    it('fails a side-effect step without a key', async () => {
      const report = await prove(oneStep('no key', {}));
      expect(report.status).toBe('failed');
      expect(failedSentences(report, 'keys')).toEqual([expect.stringContaining('“Create invoice” changes the outside world but has no key')]);
    }, PROOF_LIMIT_MS);

    it('fails a POST that is not marked as changing the outside world', async () => {
      const report = await prove(oneStep('unmarked POST', { sideEffect: false, key: undefined, label: 'Notify the CRM' }));
      expect(failedSentences(report, 'keys')).toEqual([expect.stringContaining('“Notify the CRM” sends POST, which usually changes something, but it is not marked')]);
      expect(report.status).toBe('failed');
    }, PROOF_LIMIT_MS);

    it('a receiver that honours no key: never called twice after a hard stop, the run asks a person, and the report says why', async () => {
      const report = await prove(oneStep('no key honoured', { key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: undefined }));
      const killed = check(report, 'killed');
      expect(killed.passed).toBe(true);
      expect(killed.steps[0]!.sentence).toContain('was not called twice, and the run asks a person to review it. That is the honest answer');
      expect(killed.steps[0]!.sentence).toContain('*Try again* would risk doing it a second time');
      const [run] = await Promise.all(killed.runIds.map((runId) => server.services.runs.view(runId)));
      expect(run!.run.status).toBe('needs_review');
      expect(await server.services.tests.standInEffects(killed.runIds)).toHaveLength(1);
    }, PROOF_LIMIT_MS);

    it('fails a step set to try again when unsure whose receiver honours no key', async () => {
      const report = await prove(oneStep('retry without key', { key: '{{ trigger.body.order.id }}:invoice', receiverKeyHeader: undefined, onUncertain: 'retry' }));
      expect(failedSentences(report, 'killed')).toEqual([expect.stringContaining('is set to try again when the outcome is unknown, but its receiver does not honour keys')]);
    }, PROOF_LIMIT_MS);

    it('a key-honouring receiver stopped between its action and the record took effect once', async () => {
      const report = await prove(oneStep('honoured key', { key: '{{ trigger.body.order.id }}:invoice' }));
      expect(report.status).toBe('passed');
      const killed = check(report, 'killed');
      expect(killed.steps[0]!.sentence).toContain('tried again with the same key');
      expect(await server.services.tests.standInEffects(killed.runIds)).toHaveLength(1);
      const view = await server.services.runs.view(killed.runIds[0]!);
      expect(view.run.status).toBe('succeeded');
    }, PROOF_LIMIT_MS);

    for (const template of loadTemplates()) {
      it(`passes the gallery template “${template.document.name}”`, async () => {
        const started = Date.now();
        const report = await prove(withBaseUrl(template.document, server.url));
        const failing = report.checks.filter((candidate) => !candidate.passed).map((candidate) => `${candidate.title}: ${candidate.summary} ${candidate.steps.filter((step) => !step.passed).map((step) => step.sentence).join(' ')}`);
        expect(failing).toEqual([]);
        expect(report.status).toBe('passed');
        expect(report.checks.map((candidate) => candidate.check)).toEqual(['twice', 'concurrent', 'killed', 'webhook', 'keys']);
        console.log(`proof of “${template.document.name}” on ${kind.name}: ${Date.now() - started} ms`);
      }, PROOF_LIMIT_MS);
    }
  });
}
