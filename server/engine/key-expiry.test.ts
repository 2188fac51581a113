/**
 * Honest key expiry and retention, on each database, with a real receiver on loopback.
 * The sweeper is given a clock moved forward in time; everything else runs on the real one,
 * so "after the time to live" and "older than the retention" are exactly what they say.
 *
 *   expiry:    webhook ──▶ effect (key <event id>:effect, plain receiver counting by ref)
 *   versions:  manual ──▶ invoice ──▶ second (refused in v1, mended in v2)
 *   retention: webhook ──▶ effect (key kept 365 days);  manual ──▶ delay 3 days
 */
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { readClaim } from '../store/claims.ts';
import { readExpiredKey } from '../store/expired-keys.ts';
import { oldestKeptRun } from '../store/retention.ts';
import { INPUT_TERM_MATCH } from '../store/input-values.ts';
import { listRuns } from '../store/run-list.ts';
import { insertProof } from '../store/proofs.ts';
import { getRun, insertRun } from '../store/runs.ts';
import { testDatabases } from '../testing/databases.ts';
import type { EngineHarness } from '../testing/engine-harness.ts';
import { useEngine, useReceiver } from '../testing/suite-fixtures.ts';
import { webhookEffectFlow } from '../testing/webhook-flows.ts';
import { childFlow, parentFlow } from '../testing/flow-run-flows.ts';
import { dayWords, expiredKeysAmong } from './key-expiry.ts';
import { createSweeper } from './sweeper.ts';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });
/** A clock `days` ahead of the real one, for the sweeper only. */
const ahead = (days: number) => ({ now: () => Date.now() + days * DAY, sleep: async () => {} });

async function deliver(engine: EngineHarness, hookId: string, body: unknown): Promise<string> {
  const answer = await engine.services.webhooks.receive({ hookId, contentType: 'application/json', headers: {}, rawBody: Buffer.from(JSON.stringify(body)) });
  return (answer.body as { runId: string }).runId;
}

async function count(engine: EngineHarness, table: string, runIds: string[]): Promise<number> {
  let total = 0;
  for (const id of runIds) total += Number((await engine.services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ?`, [id]))?.n ?? 0);
  return total;
}

/** webhook → a side effect to a plain receiver (no key header, so no second chance), its key kept `keyTtl`. */
function keptEffectFlow(receiverUrl: string, keyTtl: string) {
  return {
    format: 'onceflow/v1',
    name: 'Kept effect',
    sampleInput: { id: 'evt_1' },
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'effect', type: 'http.request', position: { x: 200, y: 0 }, data: {
        label: 'Send receipt', sideEffect: true, key: '{{ trigger.body.id }}:receipt', keyTtl, timeoutMs: 2000, retry: { max: 0 },
        request: { method: 'POST', url: `${receiverUrl}/receipts`, body: '{"ref": "{{ trigger.body.id }}"}' },
      } },
    ],
    edges: [{ id: 'e1', source: 'hook', target: 'effect' }],
  };
}

/** manual → invoice (a plain receiver) → a second side effect at `secondPath` (v1: refused; v2: mended). */
function twoEffectsFlow(receiverUrl: string, secondPath: string) {
  const effect = (id: string, path: string) => ({
    id, type: 'http.request', position: { x: 0, y: 0 },
    data: {
      label: id, sideEffect: true, key: `{{ trigger.body.order }}:${id}`, timeoutMs: 2000, retry: { max: 0 },
      request: { method: 'POST', url: `${receiverUrl}${path}`, body: `{"ref": "{{ trigger.body.order }}:${id}"}` },
    },
  });
  return {
    format: 'onceflow/v1',
    name: 'Two effects',
    sampleInput: { order: 'O-1' },
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} }, effect('invoice', '/invoice'), effect('second', secondPath)],
    edges: [{ id: 'e1', source: 'start', target: 'invoice' }, { id: 'e2', source: 'invoice', target: 'second' }],
  };
}

const delayFlow = {
  format: 'onceflow/v1',
  name: 'Waits three days',
  sampleInput: {},
  nodes: [
    { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} },
    { id: 'pause', type: 'delay', position: { x: 200, y: 0 }, data: { for: '3d' } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'pause' }],
};

for (const kind of testDatabases()) {
  describe(`expired keys, on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: false });
    const engine = useEngine(kind);
    let hookId: string;

    beforeAll(async () => {
      const flowId = await engine().publish(webhookEffectFlow(receiver().url));
      hookId = (await engine().services.flows.get(flowId)).triggers[0]!.hookId;
    });

    it('a replay after expiry warns with the date, acts once, and says so in the timeline; the next replay is a duplicate', async () => {
      const { db } = engine().services;
      const first = await engine().waitForRun(await deliver(engine(), hookId, { id: '4417' }));
      expect(first.status).toBe('succeeded');
      expect(receiver().effects.get('4417')).toBe(1);
      const claim = (await readClaim(db, `${first.flowId}:effect`, '4417:effect'))!;
      expect(claim.status).toBe('succeeded');

      // Within its time to live the key holds: a sweep today forgets nothing.
      expect((await createSweeper({ db, clock: ahead(0), log: silent }).sweep()).claims).toBe(0);
      const swept = await createSweeper({ db, clock: ahead(31), log: silent }).sweep();
      expect(swept.claims).toBe(1);
      expect(await readClaim(db, claim.scope, claim.key)).toBeUndefined();
      const record = await readExpiredKey(db, claim.scope, claim.key);
      expect(record).toEqual({ scope: claim.scope, key: '4417:effect', doneAt: claim.updatedAt, runId: first.id, step: 'effect', expiredAt: claim.expiresAt });
      // The delivery and its run are kept: only the key went.
      expect((await getRun(db, first.id))?.status).toBe('succeeded');

      const expired = await expiredKeysAmong(db, [claim, { scope: claim.scope, key: 'never-used' }], Date.now());
      expect([...expired.values()].map((row) => row.key)).toEqual(['4417:effect']);

      const preview = await engine().services.runs.replayPreview(first.id);
      const step = preview.steps.find((candidate) => candidate.nodeId === 'effect')!;
      expect(step.action).toBe('act');
      expect(step.expired).toEqual({ key: '4417:effect', expiredAt: claim.expiresAt, doneAt: claim.updatedAt, runId: first.id, runSeq: first.seq, doneBy: `run #${first.seq}` });
      expect(step.reason).toContain(`key 4417:effect expired on ${dayWords(claim.expiresAt, Date.now())}; this will act again`);
      expect(step.reason).toContain(`done by run #${first.seq}`);
      expect(preview.expired).toBe(1);
      expect(preview.counts.act).toBe(1);

      const again = await engine().waitForRun((await engine().services.runs.replay(first.id)).runId);
      expect(again.status).toBe('succeeded');
      expect(receiver().effects.get('4417')).toBe(2);
      const { timeline } = await engine().services.runs.get(again.id);
      const note = timeline.find((event) => event.type === 'step.key_expired');
      expect(note).toMatchObject({ nodeId: 'effect', data: { key: '4417:effect', expiredAt: claim.expiresAt, doneAt: claim.updatedAt, runId: first.id } });
      expect(timeline.findIndex((event) => event.type === 'step.key_expired')).toBeLessThan(timeline.findIndex((event) => event.type === 'step.succeeded'));

      // Claimed again: the next replay is stopped as a duplicate of the one that just acted.
      const nextPreview = await engine().services.runs.replayPreview(first.id);
      expect(nextPreview.steps.find((candidate) => candidate.nodeId === 'effect')).toMatchObject({ action: 'deduplicate' });
      expect(nextPreview.expired).toBe(0);
      const third = await engine().waitForRun((await engine().services.runs.replay(first.id)).runId);
      expect(third.status).toBe('succeeded');
      expect(await engine().eventTypes(third.id)).toContain('step.duplicate');
      expect(await engine().eventTypes(third.id)).not.toContain('step.key_expired');
      expect(receiver().effects.get('4417')).toBe(2);
    });

    it('treats a claim past its time to live that no sweep has reached yet as expired, in the preview and the run', async () => {
      const { db } = engine().services;
      const first = await engine().waitForRun(await deliver(engine(), hookId, { id: '5120' }));
      const scope = `${first.flowId}:effect`;
      // As if its time to live had run out a minute ago, before any sweep.
      const expiredAt = Date.now() - 60_000;
      await db.run(`UPDATE claims SET expires_at = ? WHERE scope = ? AND key = ?`, [expiredAt, scope, '5120:effect']);

      const step = (await engine().services.runs.replayPreview(first.id)).steps.find((candidate) => candidate.nodeId === 'effect')!;
      expect(step).toMatchObject({ action: 'act', expired: { key: '5120:effect', expiredAt, runId: first.id } });

      const again = await engine().waitForRun((await engine().services.runs.replay(first.id)).runId);
      expect(receiver().effects.get('5120')).toBe(2);
      const note = (await engine().services.runs.get(again.id)).timeline.find((event) => event.type === 'step.key_expired');
      expect(note?.data).toEqual({ scope, key: '5120:effect' });
      expect((await readClaim(db, scope, '5120:effect'))?.ownerRunId).toBe(again.id);
    });
    it('never forgets an uncertain key: past its time to live a replay still stops for review, and the receiver is called once', async () => {
      const { db } = engine().services;
      // No key sent to the receiver, which acts and then answers 503: it may or may not have happened.
      const flowId = await engine().publish(keptEffectFlow(receiver().url, '30d'));
      const keptHook = (await engine().services.flows.get(flowId)).triggers[0]!.hookId;
      receiver().behave = () => ({ kind: 'status', status: 503, act: true });
      const first = await engine().waitForRun(await deliver(engine(), keptHook, { id: '6001' }), ['succeeded', 'failed', 'needs_review']);
      receiver().behave = () => ({ kind: 'ok' });
      expect(first.status).toBe('needs_review');
      const scope = `${first.flowId}:effect`;
      expect((await readClaim(db, scope, '6001:receipt'))?.status).toBe('uncertain');
      await db.run(`UPDATE claims SET expires_at = ? WHERE scope = ? AND key = ?`, [Date.now() - 60_000, scope, '6001:receipt']);

      await createSweeper({ db, clock: ahead(31), log: silent }).sweep();
      expect((await readClaim(db, scope, '6001:receipt'))?.status).toBe('uncertain');
      expect(await readExpiredKey(db, scope, '6001:receipt')).toBeUndefined();
      const step = (await engine().services.runs.replayPreview(first.id)).steps.find((candidate) => candidate.nodeId === 'effect')!;
      expect(step.action).not.toBe('act');
      expect(step.expired).toBeUndefined();

      const again = await engine().waitForRun((await engine().services.runs.replay(first.id)).runId, ['succeeded', 'failed', 'needs_review']);
      expect(again.status).toBe('needs_review');
      expect(await engine().eventTypes(again.id)).not.toContain('step.key_expired');
      expect(receiver().effects.get('6001')).toBe(1);
    });
  });

  describe(`expired keys in a rerun on another version, on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: false });
    const engine = useEngine(kind);

    beforeAll(() => {
      receiver().behave = (call) => (call.path === '/broken' ? { kind: 'status', status: 422 } : { kind: 'ok' });
    });

    it('the summed preview of Rerun all counts the expired keys, and the rerun acts on them once', async () => {
      const { db } = engine().services;
      const flowId = await engine().publish(twoEffectsFlow(receiver().url, '/broken'));
      const run = await engine().runAndWait(flowId, { order: 'X-1' });
      expect(run.status).toBe('failed');
      expect(receiver().effects.get('X-1:invoice')).toBe(1);
      // v2 mends the second step; on v2 the first step meets its claim again.
      await engine().services.flows.saveDraft(flowId, twoEffectsFlow(receiver().url, '/mended'));
      expect((await engine().services.flows.publish(flowId, 'admin')).version).toBe(2);
      await createSweeper({ db, clock: ahead(31), log: silent }).sweep();

      const bulk = await engine().services.runs.bulkPreview({ flowId, status: 'failed' });
      expect(bulk).toMatchObject({ runs: 1, expired: 1, counts: { act: 2, deduplicate: 0 } });
      const invoice = (await engine().services.runs.rerunPreview(run.id)).steps.find((step) => step.nodeId === 'invoice')!;
      expect(invoice).toMatchObject({ action: 'act', expired: { key: 'X-1:invoice', runId: run.id, runSeq: run.seq, doneBy: 'this run' } });
      // The server's words name their zone; a page words the moments beside them in its reader's.
      expect(invoice.reason).toMatch(/^Acts again: key X-1:invoice expired on \d{1,2} [A-Z][a-z]{2}(?: \d{4})? UTC; this will act again \(it was done by this run on \d{1,2} [A-Z][a-z]{2}(?: \d{4})? UTC\)\.$/);

      expect(await engine().services.runs.bulkRerun({ flowId, status: 'failed' })).toEqual({ rerun: 1 });
      expect((await engine().waitForRun(run.id)).status).toBe('succeeded');
      expect(receiver().effects.get('X-1:invoice')).toBe(2);
      const { timeline } = await engine().services.runs.get(run.id);
      expect(timeline.filter((event) => event.type === 'step.key_expired' && event.attempt === 2).map((event) => event.nodeId)).toEqual(['invoice']);
    });
  });

  describe(`retention, on ${kind.name}`, () => {
    const receiver = useReceiver({ honoursKeys: false });
    const engine = useEngine(kind);

    it('deletes old ended runs in batches, keeps unfinished runs and every key still within its time to live', async () => {
      const { db } = engine().services;
      const delayId = await engine().publish(delayFlow);
      const waiting = await engine().waitForRun((await engine().services.runs.start({ flowId: delayId, input: {} })).runId, ['waiting']);
      const flowId = await engine().publish(keptEffectFlow(receiver().url, '365d'));
      const { hookId } = (await engine().services.flows.get(flowId)).triggers[0]!;
      // One delivery's receiver acts and drops the answer: its run needs review.
      receiver().behave = (call) => (call.ref === 'unsure' ? { kind: 'drop' } : { kind: 'ok' });
      const review = await engine().waitForRun(await deliver(engine(), hookId, { id: 'unsure' }));
      expect(review.status).toBe('needs_review');
      const ended: string[] = [];
      for (let i = 0; i < 7; i++) ended.push((await engine().waitForRun(await deliver(engine(), hookId, { id: `old-${i}` }))).id);
      // One recent ended run: created and finished well inside the retention.
      const recent = await engine().waitForRun(await deliver(engine(), hookId, { id: 'recent' }));
      await db.run(`UPDATE runs SET created_at = created_at + ?, finished_at = finished_at + ? WHERE id = ?`, [150 * DAY, 150 * DAY, recent.id]);
      // An expired-key record older than the retention, and one that is not.
      await db.run(`INSERT INTO expired_keys (scope, key, done_at, run_id, step, expired_at) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)`, [
        'f:old', 'ancient', 1, 'run_gone', 'effect', Date.now() - 400 * DAY,
        'f:old', 'fresh', 1, 'run_gone', 'effect', Date.now() + 100 * DAY,
      ]);
      expect(await count(engine(), 'timeline_events', ended)).toBeGreaterThan(0);
      expect(await count(engine(), 'checkpoints', ended)).toBe(7);
      // The stored searchable values of their event ids (at path `id`): rows of the key on
      // PostgreSQL, full-text rows on SQLite (store/input-values.ts).
      const storedValues = async () => {
        let stored = 0;
        for (let i = 0; i < 7; i++) {
          const [query, param] = db.dialect === 'sqlite'
            ? [`SELECT COUNT(*) AS n FROM run_input_terms WHERE run_input_terms MATCH ${INPUT_TERM_MATCH}`, ['id', `old-${i}`]]
            : [`SELECT COUNT(*) AS n FROM run_input_values WHERE path = ? AND value = ?`, ['id', `old-${i}`]];
          stored += Number((await db.get<{ n: number }>(query, param))?.n);
        }
        return stored;
      };
      expect(await storedValues()).toBe(7);
      expect((await listRuns(db, { input: { path: 'id', value: 'old-3' }, limit: 10 })).map((run) => run.id)).toEqual([ended[3]]);

      // Off by default: nothing is deleted without a retention, however old.
      expect((await createSweeper({ db, clock: ahead(200), log: silent, batch: 3 }).sweep()).runs).toBe(0);
      expect(await getRun(db, ended[0]!)).toBeDefined();

      const swept = await createSweeper({ db, clock: ahead(200), log: silent, retentionMs: 180 * DAY, batch: 3 }).sweep();
      expect(swept.runs).toBe(7);
      // Three batches of runs (3 + 3 + 1), one of deliveries and one of records, at least.
      expect(swept.batches).toBeGreaterThanOrEqual(5);
      for (const id of ended) expect(await getRun(db, id)).toBeUndefined();
      expect(await count(engine(), 'timeline_events', ended)).toBe(0);
      expect(await count(engine(), 'checkpoints', ended)).toBe(0);
      // Their searchable input values went with them.
      expect(await storedValues()).toBe(0);
      expect(Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM inbound_events WHERE hook_id = ?`, [hookId]))?.n)).toBe(0);
      // Kept: the waiting run, the run that needs review (with its timeline), the recent one.
      expect((await getRun(db, waiting.id))?.status).toBe('waiting');
      expect((await getRun(db, review.id))?.status).toBe('needs_review');
      expect(await count(engine(), 'timeline_events', [review.id])).toBeGreaterThan(0);
      expect((await getRun(db, recent.id))?.status).toBe('succeeded');
      expect(await oldestKeptRun(db)).toEqual({ id: waiting.id, seq: waiting.seq, createdAt: waiting.createdAt });
      // Every key outlives its run while within its time to live.
      for (let i = 0; i < 7; i++) expect((await readClaim(db, `${flowId}:effect`, `old-${i}:receipt`))?.status).toBe('succeeded');
      expect(await readExpiredKey(db, 'f:old', 'ancient')).toBeUndefined();
      expect(await readExpiredKey(db, 'f:old', 'fresh')).toBeDefined();

      // The same event delivered again starts a new run, which meets the kept key: nothing is sent twice.
      const redelivered = await engine().waitForRun(await deliver(engine(), hookId, { id: 'old-0' }));
      expect(await engine().eventTypes(redelivered.id)).toContain('step.duplicate');
      expect(receiver().effects.get('old-0')).toBe(1);
      const preview = await engine().services.runs.replayPreview(redelivered.id);
      expect(preview.steps[0]!.reason).toContain('an earlier run no longer kept');

      const status = await engine().services.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs`);
      expect(Number(status?.n)).toBe(4);
    });

    it('keeps the test runs of a proof that is kept, and deletes other old test runs', async () => {
      const { db } = engine().services;
      const flowId = await engine().publish(keptEffectFlow(receiver().url, '30d'));
      const versionId = (await db.get<{ id: string }>(`SELECT id FROM flow_versions WHERE flow_id = ? ORDER BY version DESC LIMIT 1`, [flowId]))!.id;
      const old = Date.now() - 300 * DAY;
      await insertProof(db, { id: 'prf_kept', flowId, versionId, fingerprint: 'f', status: 'passed', report: {}, createdAt: old, finishedAt: old, createdBy: 'admin' });
      const testRun = async (id: string, scope: string) => {
        await insertRun(db, { id, flowId, versionId, input: {}, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt: old, createdBy: 'admin', test: { scope, targets: 'stand-ins' } });
        await db.run(`UPDATE runs SET status = 'succeeded', finished_at = ? WHERE id = ?`, [old, id]);
      };
      await testRun('run_proof_check', 'prf_kept:twice');
      await testRun('run_editor_test', 'editor:alice');
      await testRun('run_other_proof', 'prf_kept2:twice');
      await createSweeper({ db, clock: ahead(0), log: silent, retentionMs: 180 * DAY, batch: 10 }).sweep();
      expect(await getRun(db, 'run_proof_check')).toBeDefined();
      expect(await getRun(db, 'run_editor_test')).toBeUndefined();
      // Only the proof's own scope keeps a run: a longer id that starts the same does not.
      expect(await getRun(db, 'run_other_proof')).toBeUndefined();
    });

    it('never gives a run number twice, even after retention deleted the newest runs', async () => {
      const { db } = engine().services;
      const flowId = await engine().publish(keptEffectFlow(receiver().url, '30d'));
      const versionId = (await db.get<{ id: string }>(`SELECT id FROM flow_versions WHERE flow_id = ? ORDER BY version DESC LIMIT 1`, [flowId]))!.id;
      const endedRun = async (id: string, createdAt: number) => {
        const seq = await insertRun(db, { id, flowId, versionId, input: { id }, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt, createdBy: 'admin' });
        await db.run(`UPDATE runs SET status = 'succeeded', finished_at = ? WHERE id = ?`, [createdAt, id]);
        return seq;
      };
      // The newest runs are old enough to go, and nothing newer is kept.
      const seqs = [await endedRun('run_newest_a', Date.now() - 300 * DAY), await endedRun('run_newest_b', Date.now() - 290 * DAY)];
      const retention = { db, clock: ahead(0), log: silent, retentionMs: 180 * DAY, batch: 10 };
      await createSweeper(retention).sweep();
      expect(await getRun(db, 'run_newest_b')).toBeUndefined();
      const retired = () => db.get<{ highest: number }>(`SELECT highest FROM retired_run_numbers WHERE id = 1`);
      expect(Number((await retired())?.highest)).toBe(Math.max(...seqs));

      const next = await engine().runAndWait(flowId, { id: 'after-retention' });
      expect(next.seq).toBeGreaterThan(Math.max(...seqs));
      // A later sweep that deletes only lower numbers leaves the record where it was.
      await db.run(`UPDATE runs SET created_at = ?, finished_at = ? WHERE id = ?`, [Date.now() - 300 * DAY, Date.now() - 300 * DAY, next.id]);
      await endedRun('run_newer', Date.now());
      await createSweeper(retention).sweep();
      expect(await getRun(db, next.id)).toBeUndefined();
      expect(Number((await retired())?.highest)).toBe(next.seq);
    });

    it('keeps a child run as long as the run that started it, then deletes it after its parent', async () => {
      const { db } = engine().services;
      receiver().behave = () => ({ kind: 'ok' });
      const childId = await engine().publish(childFlow(receiver().url, 'Kept child'));
      const parentId = await engine().publish(parentFlow(childId, { name: 'Kept parent' }));
      const parent = await engine().runAndWait(parentId, { order: { id: 'P-1', total: 1 } });
      expect(parent.status).toBe('succeeded');
      const child = (await db.get<{ id: string }>(`SELECT id FROM runs WHERE parent_run_id = ?`, [parent.id]))!;
      // The child ended long ago; the parent finished only recently (well inside the retention).
      await db.run(`UPDATE runs SET created_at = created_at - ?, finished_at = finished_at - ? WHERE id = ?`, [300 * DAY, 300 * DAY, child.id]);
      await db.run(`UPDATE runs SET created_at = created_at - ? WHERE id = ?`, [300 * DAY, parent.id]);
      const retention = { db, clock: ahead(0), log: silent, retentionMs: 180 * DAY, batch: 10 };
      expect((await createSweeper(retention).sweep()).runs).toBe(0);
      expect(await getRun(db, child.id)).toBeDefined();
      expect(await count(engine(), 'timeline_events', [child.id])).toBeGreaterThan(0);

      // Once the parent is old enough to go, the child goes after it.
      await db.run(`UPDATE runs SET finished_at = finished_at - ? WHERE id = ?`, [300 * DAY, parent.id]);
      await createSweeper(retention).sweep();
      await createSweeper(retention).sweep();
      expect(await getRun(db, parent.id)).toBeUndefined();
      expect(await getRun(db, child.id)).toBeUndefined();
      expect(await count(engine(), 'timeline_events', [child.id])).toBe(0);
    });
  });
}
