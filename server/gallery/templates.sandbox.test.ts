/**
 * Every template in the gallery, copied as a new user would, published unchanged and run
 * against the app's own sandbox receivers: each run succeeds, and replaying it adds no
 * effect to any sandbox ledger. (The lead outreach sequence waits
 * days between messages; its copy's delays are shortened so the test can watch it end.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../app.ts';
import { hookUrl, startApp, waitForRunStatus } from '../testing/app-harness.ts';
import { createSqliteDatabase } from '../testing/databases.ts';
import { postJson } from '../testing/http-client.ts';
import { trpc } from '../testing/server-process.ts';
import { listTemplates } from './gallery.ts';

describe('gallery templates against the sandbox', () => {
  const database = createSqliteDatabase();
  let server: RunningServer;

  beforeAll(async () => {
    server = await startApp(database.url, { ONCEFLOW_LEASE_MS: '5000' });
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  const effects = () => server.services.sandbox!.ledger.summaries().reduce((sum, receiver) => sum + receiver.effects, 0);

  for (const template of listTemplates()) {
    it(`runs "${template.name}" to succeeded, and a replay adds no effect`, async () => {
      const { id: flowId } = await trpc<{ id: string }>(server.url, 'gallery.use', { templateId: template.id });
      const draft = (await server.services.flows.get(flowId)).draft;
      for (const node of draft.nodes) if (node.type === 'delay') node.data.for = '200ms';
      await server.services.flows.saveDraft(flowId, draft);
      await server.services.flows.publish(flowId);

      const trigger = draft.nodes.find((node) => node.type.startsWith('trigger.'))!;
      const before = effects();
      const runId = trigger.type === 'trigger.webhook'
        ? ((await postJson(await hookUrl(server, flowId, trigger.id), draft.sampleInput)).body.runId as string)
        : (await server.services.runs.start({ flowId, input: draft.sampleInput })).runId;
      const run = await waitForRunStatus(server, runId, ['succeeded', 'failed', 'needs_review'], 30_000);
      expect(run.status, run.error ?? '').toBe('succeeded');
      const acted = effects() - before;
      expect(acted).toBeGreaterThanOrEqual(1);

      const { runId: replayId } = await server.services.runs.replay(runId);
      const replay = await waitForRunStatus(server, replayId, ['succeeded', 'failed', 'needs_review'], 30_000);
      expect(replay.status).toBe('succeeded');
      expect(effects() - before).toBe(acted);
      // The replay is stopped either by a claimed key (duplicate) or, for state events, as stale.
      const timeline = (await server.services.runs.get(replayId)).timeline;
      const stopped = timeline.filter((event) => event.type === 'step.duplicate' || (event.type === 'step.skipped' && event.data?.reason === 'stale'));
      expect(stopped.length).toBeGreaterThanOrEqual(1);
    }, 60_000);
  }
});
