/**
 * What people do with runs: start, list, inspect, rerun, replay, cancel, and resolve a
 * step whose outcome is unknown. Workers execute; this only changes rows, each change in
 * one transaction with its timeline event.
 */
import { newId } from '../ids.ts';
import { readClaim, readClaims, recordSkipOnUncertainClaim, resolveUncertainClaim } from '../store/claims.ts';
import type { SkipRecord } from './review-decisions.ts';
import type { Db } from '../store/db.ts';
import type { FlowStore } from '../store/flows.ts';
import { currentAttemptStarts } from '../store/attempt-starts.ts';
import { stepCounts } from '../store/run-stats.ts';
import { cancelAutoRerun, countAutoRerun } from '../store/auto-reruns.ts';
import { listRuns } from '../store/run-list.ts';
import { getRun, insertRun, transitionRun, type NewRun } from '../store/runs.ts';
import { holdForProbe } from '../store/probe-runs.ts';
import { eventsAfter, readStepTraces } from '../store/run-page.ts';
import { readRunRepeats, readRunStatusAndRepeats } from '../store/inbound-repeats.ts';
import { mergeByTime } from '../../core/timeline-merge.ts';
import { deleteCheckpoint, insertEvents, listEvents, loadCheckpoints, loadCheckpointsOf, upsertCheckpoints } from '../store/timeline.ts';
import { NotFoundError, UserError } from './errors.ts';
import type { PlanCache } from './flow-plan.ts';
import { cancelRun } from './run-cancel.ts';
import { searchFilter, type RunSearchRequest } from './run-search.ts';
import { moveForRerun, previewOnVersion, previewReplay, versionEventData, withBody } from './version-rerun.ts';
import { pickVersion, type VersionChoice } from './version-choice.ts';
import { indexRecords, stepKeys, summarizeRun } from './run-views.ts';
import { loopItemPage, loopPageStepIds, stepViewsWithLoops } from './loop-views.ts';
import { parentLink, withChildLinks } from './child-views.ts';
import { SETTLED_RUN_STATUSES, type Clock, type RunRow, type RunStatus, type TestTargets } from './types.ts';
import { currentAttemptDuration } from '../../core/attempt-spans.ts';

export type ReviewDecision = 'happened' | 'do-it' | 'skip';

/** Most runs one bulk rerun takes at once. */
const BULK_LIMIT = 500;
/** Events handed to a watcher per look. */
const WATCH_BATCH = 1000;

export interface RunServiceDeps {
  db: Db;
  flows: FlowStore;
  plans: PlanCache;
  clock: Clock;
  /** Called after a run becomes leasable, so an idle worker in this process wakes up. */
  onQueued(): void;
}

export function runService({ db, flows, plans, clock, onQueued }: RunServiceDeps) {
  async function requireRun(id: string): Promise<RunRow> {
    const run = await getRun(db, id);
    if (!run) throw new NotFoundError(`There is no run with id ${id}.`);
    return run;
  }

  /** `forProbe`: created held for a proof's probe process (store/probe-runs.ts), which alone takes it. */
  async function enqueue(run: NewRun, forProbe = false) {
    const seq = await db.transaction(async (tx) => {
      const number = await insertRun(tx, run);
      if (forProbe) await holdForProbe(tx, run.id);
      return number;
    });
    if (!forProbe) onQueued();
    return { runId: run.id, seq };
  }

  return {
    /**
     * Runs the latest published version with a manual trigger; a test run names the
     * version it tests (a snapshot of the draft, test-mode/test-runs.ts) and its test.
     */
    async start(input: { flowId: string; input?: unknown; by?: string; versionId?: string; test?: { scope: string; targets: TestTargets }; forProbe?: boolean }) {
      const version = input.versionId ? await flows.version(input.versionId) : await flows.latestVersion(input.flowId);
      if (!version) {
        const flow = await flows.get(input.flowId);
        throw flow
          ? new UserError(`The flow "${flow.name}" has no published version yet; publish it first.`)
          : new NotFoundError(`There is no flow with id ${input.flowId}.`);
      }
      const plan = await plans.get(version.id);
      return enqueue({
        id: newId('run'),
        flowId: input.flowId,
        versionId: version.id,
        input: input.input ?? plan?.document.sampleInput ?? {},
        triggerKind: 'manual',
        triggerNode: plan?.trigger?.id ?? null,
        eventId: null,
        replayOf: null,
        createdAt: clock.now(),
        createdBy: input.by ?? 'admin',
        ...(input.test ? { test: input.test } : {}),
      }, input.forProbe === true);
    },

    /** Test runs are left out unless `mode` asks for them; a search may name what a run did (run-search.ts). */
    async list(filter: RunSearchRequest & { status?: RunStatus; cursor?: number; limit?: number; mode?: 'live' | 'test' | 'all' }) {
      const limit = Math.min(filter.limit ?? 50, 500);
      const search = await searchFilter(flows, plans, filter);
      const rows = await listRuns(db, { flowId: filter.flowId, status: filter.status, ...search, beforeSeq: filter.cursor, mode: filter.mode, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const [counts, versions, attemptStarts] = await Promise.all([
        stepCounts(db, page.map((run) => run.id)),
        flows.versionNumbers([...new Set(page.map((run) => run.versionId))]),
        // Only a rerun's attempt began later than the run: the others need no look.
        currentAttemptStarts(db, page.filter((run) => run.attempt > 1).map((run) => run.id)),
      ]);
      const runs = await Promise.all(page.map(async (run) => ({
        ...summarizeRun(run),
        flowName: (await plans.get(run.versionId))?.document.name ?? null,
        version: versions.get(run.versionId) ?? null,
        duplicates: counts.get(run.id)?.duplicates ?? 0,
        skipped: counts.get(run.id)?.skipped ?? 0,
        durationMs: currentAttemptDuration(run, attemptStarts.get(run.id)),
      })));
      return { runs, nextCursor: rows.length > limit ? page.at(-1)!.seq : null };
    },

    /** A page of a run's timeline, for views that show very long ones bit by bit. */
    async timeline(id: string, afterId = 0, limit = 1000) {
      await requireRun(id);
      const events = await listEvents(db, id, afterId, Math.min(limit, 5000));
      return { events, nextAfterId: events.length === Math.min(limit, 5000) ? events.at(-1)!.id! : null };
    },

    /** What a rerun would do on the chosen version (the latest when a newer one exists). */
    async rerunPreview(id: string, version?: VersionChoice) {
      return previewOnVersion({ db, flows, plans }, await requireRun(id), version);
    },

    /** What a replay (with an edited trigger body, or the run's own) would do: its keys and which were done. */
    async replayPreview(id: string, version?: VersionChoice, changes?: { body: unknown }) {
      return previewReplay({ db, flows, plans }, await requireRun(id), version, changes);
    },

    /** The version a run used and the newest published one, so rerun and replay can offer both. */
    async versionChoice(id: string) {
      const target = await pickVersion(flows, await requireRun(id));
      return { ran: target.fromVersion, latest: target.latestVersion, newerExists: target.newerExists };
    },

    /** The summed preview of rerunning every run with this status (of one flow, or all). */
    async bulkPreview(filter: { flowId?: string; status: 'failed' | 'needs_review'; version?: VersionChoice }) {
      const runs = await listRuns(db, { flowId: filter.flowId, status: filter.status, limit: BULK_LIMIT });
      const counts = { skip: 0, deduplicate: 0, act: 0, review: 0 };
      let warnings = 0;
      let onOlderVersion = 0;
      // Steps that act again because their key expired: the summary warns before the reruns start.
      let expired = 0;
      for (const run of runs) {
        const preview = await previewOnVersion({ db, flows, plans }, run, filter.version).catch(() => null);
        if (!preview) continue;
        for (const action of Object.keys(counts) as (keyof typeof counts)[]) counts[action] += preview.counts[action];
        warnings += preview.warnings;
        expired += preview.expired ?? 0;
        if (preview.target.newerExists) onOlderVersion++;
      }
      return { runs: runs.length, counts, warnings, onOlderVersion, expired };
    },

    async bulkRerun(filter: { flowId?: string; status: 'failed' | 'needs_review'; version?: VersionChoice }, by = 'admin') {
      const runs = await listRuns(db, { flowId: filter.flowId, status: filter.status, limit: BULK_LIMIT });
      let rerun = 0;
      for (const run of runs) {
        const target = await pickVersion(flows, run, filter.version);
        const moved = await db.transaction(async (tx) => {
          if (!(await transitionRun(tx, run.id, [filter.status], 'queued', { attemptIncrement: true, now: clock.now() }))) return false;
          await moveForRerun(tx, { plans }, run, target);
          await insertEvents(tx, [{ runId: run.id, type: 'run.rerun', nodeId: null, attempt: run.attempt + 1, data: { by, previousStatus: run.status, bulk: true, ...versionEventData(target) }, createdAt: clock.now() }]);
          return true;
        });
        if (moved) rerun++;
      }
      if (rerun) onQueued();
      return { rerun };
    },

    /**
     * The run and its steps, without the timeline (read in pages, see `timeline`): a fixed
     * number of statements and an answer whose size grows with the steps, not the events.
     */
    async view(id: string) {
      const run = await requireRun(id);
      const [plan, version, checkpoints, traces, repeats] = await Promise.all([
        plans.get(run.versionId), flows.version(run.versionId), loadCheckpoints(db, id), readStepTraces(db, id), readRunRepeats(db, run),
      ]);
      const claims = await readClaims(db, stepKeys(checkpoints, traces));
      const steps = plan ? stepViewsWithLoops(plan.document, indexRecords(id, checkpoints, traces, claims)) : [];
      return {
        run: { ...summarizeRun(run), input: run.input, version: version?.version ?? null, flowName: plan?.document.name ?? null, parent: await parentLink(db, plans, run) },
        steps: await withChildLinks(db, plans, steps),
        // Repeated deliveries of the run's event, listed on its inbound row rather than stored
        // as timeline events (store/inbound-repeats.ts): the page merges them into its timeline.
        // The count is what `watch` reports, so a watching page knows when to read them again.
        repeats: repeats.events,
        repeatsCounted: repeats.counted,
      };
    },

    /** One page of a For each step's items, each with its own steps (default: 20 from the first). */
    async loopItems(id: string, loopId: string, offset = 0, limit = 20) {
      const run = await requireRun(id);
      const plan = await plans.get(run.versionId);
      if (!plan?.bodies.has(loopId)) throw new UserError(`Run #${run.seq} has no For each step "${loopId}".`);
      // Only the loop's own records and this page's items: a page of a 10,000-item loop
      // reads a few dozen checkpoints, not every item's.
      const nodeIds = loopPageStepIds(plan.document, loopId, offset, Math.min(limit, 100));
      const [checkpoints, traces] = await Promise.all([loadCheckpointsOf(db, id, nodeIds), readStepTraces(db, id, nodeIds)]);
      const records = indexRecords(id, checkpoints, traces, await readClaims(db, stepKeys(checkpoints, traces)));
      return loopItemPage(plan.document, loopId, records, offset, Math.min(limit, 100));
    },

    /** The run, its steps and its whole timeline at once: for scripts and checks, not for pages. */
    async get(id: string) {
      const [view, timeline] = await Promise.all([this.view(id), listEvents(db, id)]);
      return { ...view, timeline: mergeByTime(timeline, view.repeats) };
    },

    /**
     * The run's changes as they happen, for a page that watches it: each batch of new events
     * in order, and the status whenever it moves. The status is read before the events, so
     * once a settled status is seen every event of the run is already written, and the watch
     * ends after handing them over. A repeated delivery writes no event (store/inbound-repeats.ts),
     * so the status is read with the count of repeats, and a change of either is handed over.
     * Two indexed queries per look keep a watcher cheap.
     */
    async *watch(id: string, afterId: number, signal: AbortSignal, everyMs = 500) {
      let lastId = afterId;
      let lastStatus: RunStatus | undefined;
      let lastRepeats: number | undefined;
      while (!signal.aborted) {
        // Not the whole run: a watcher looks twice a second, and a run's input may be large.
        const state = await readRunStatusAndRepeats(db, id);
        if (!state) throw new NotFoundError(`There is no run with id ${id}.`);
        const { status, repeatsCounted } = state;
        const events = await eventsAfter(db, id, lastId, WATCH_BATCH);
        if (events.length > 0) lastId = events.at(-1)!.id ?? lastId;
        if (events.length > 0 || status !== lastStatus || repeatsCounted !== lastRepeats) yield { status, events, lastId, repeatsCounted };
        lastStatus = status;
        lastRepeats = repeatsCounted;
        // A full batch means more are waiting: look again at once.
        if (events.length === WATCH_BATCH) continue;
        if (SETTLED_RUN_STATUSES.includes(status)) return;
        await pause(everyMs, signal);
      }
    },

    /**
     * A new attempt of the same run: checkpointed steps are skipped, claimed ones deduplicated.
     * On another version the run moves to it first (version-choice.ts says what that changes).
     */
    /**
     * Reruns a failed run (or one that needs review) from its checkpoints. `automatic` is
     * the flow's own retry (settings.retryFailedRuns, auto-reruns.ts): it is counted, and
     * says which one it is on the timeline; a person's rerun drops a pending automatic one.
     */
    async rerun(id: string, by = 'admin', version?: VersionChoice, options: { automatic?: { number: number; of: number } } = {}) {
      const run = await requireRun(id);
      const { target, ...preview } = await previewOnVersion({ db, flows, plans }, run, version);
      const { automatic } = options;
      const moved = await db.transaction(async (tx) => {
        if (!(await transitionRun(tx, id, ['failed', 'needs_review'], 'queued', { attemptIncrement: true, now: clock.now() }))) return false;
        await moveForRerun(tx, { plans }, run, target);
        if (automatic) await countAutoRerun(tx, id);
        else await cancelAutoRerun(tx, id);
        const data = { by, previousStatus: run.status, ...(automatic ? { automatic } : {}), ...versionEventData(target, preview) };
        await insertEvents(tx, [{ runId: id, type: 'run.rerun', nodeId: null, attempt: run.attempt + 1, data, createdAt: clock.now() }]);
        return true;
      });
      if (!moved) throw new UserError(`Run #${run.seq} is ${run.status.replace('_', ' ')}; only a failed run or one that needs review can be rerun.`);
      onQueued();
      return { runId: id, attempt: run.attempt + 1, version: target.version, fromVersion: target.fromVersion };
    },

    /**
     * A new run with the same input (or `changes`: an edited trigger body), on the chosen
     * version; side-effect steps whose keys were already done come back as duplicates.
     */
    async replay(id: string, by = 'admin', version?: VersionChoice, changes?: { body: unknown }) {
      const run = await requireRun(id);
      const target = await pickVersion(flows, run, version);
      const started = await enqueue({
        id: newId('run'), flowId: run.flowId, versionId: target.versionId, input: changes ? withBody(run, changes.body) : run.input, triggerKind: run.triggerKind,
        triggerNode: run.triggerNode, eventId: run.eventId, replayOf: run.id, createdAt: clock.now(), createdBy: by,
        // A replayed test stays a test, with its keys and its stand-ins.
        ...(run.testScope !== null ? { test: { scope: run.testScope, targets: run.testTargets ?? 'stand-ins' } } : {}),
      });
      return { ...started, version: target.version, fromVersion: target.fromVersion };
    },

    /**
     * Cancels a run and the child runs it started that have not ended; a step already acting
     * finishes and is recorded (run-cancel.ts).
     */
    async cancel(id: string, by = 'admin') {
      const run = await requireRun(id);
      const cancelled = await cancelRun(db, plans, run, by, clock);
      if (!cancelled) {
        const now = (await getRun(db, id))?.status ?? run.status;
        throw new UserError(`Run #${run.seq} is already ${now.replace('_', ' ')}, so there is nothing to cancel.`);
      }
      return cancelled;
    },

    /**
     * A person's decision on a step whose outcome is unknown: it happened (record it as
     * done), do it (release the key so the step acts once more), or skip it (this run goes
     * on without the step; the key stays uncertain, so any later run that meets it stops
     * for review and names this decision). The run then continues as a new attempt.
     */
    async resolve(id: string, nodeId: string, decision: ReviewDecision, by = 'admin') {
      const run = await requireRun(id);
      const checkpoint = (await loadCheckpoints(db, id)).find((row) => row.nodeId === nodeId);
      if (run.status !== 'needs_review' || checkpoint?.status !== 'uncertain' || !checkpoint.key || !checkpoint.keyScope) {
        throw new UserError(`Step "${nodeId}" of run #${run.seq} is not waiting for a decision.`);
      }
      const ref = { scope: checkpoint.keyScope, key: checkpoint.key };
      const now = clock.now();
      await db.transaction(async (tx) => {
        const decisionRecord = { decision, by, at: new Date(now).toISOString() };
        if (decision === 'happened') {
          const output = { resolved: 'happened', by, at: decisionRecord.at };
          await resolveUncertainClaim(tx, ref, 'succeeded', output, now);
          const claim = await readClaim(tx, ref.scope, ref.key);
          await upsertCheckpoints(tx, [{ runId: id, nodeId, status: 'succeeded', output: claim?.output ?? output, ...keyColumns(ref), attempt: run.attempt, createdAt: now }]);
        } else if (decision === 'do-it') {
          await resolveUncertainClaim(tx, ref, 'failed', null, now);
          await deleteCheckpoint(tx, id, nodeId);
        } else {
          const skipped: SkipRecord = { decision: 'skip', runId: id, runSeq: run.seq, by, at: decisionRecord.at };
          await recordSkipOnUncertainClaim(tx, ref, skipped, now);
          await upsertCheckpoints(tx, [{ runId: id, nodeId, status: 'skipped', output: { reason: 'review', continue: true }, ...keyColumns(ref), attempt: run.attempt, createdAt: now }]);
        }
        await insertEvents(tx, [{ runId: id, type: 'step.resolved', nodeId, attempt: run.attempt, data: { ...decisionRecord, ...ref }, createdAt: now }]);
        if (!(await transitionRun(tx, id, ['needs_review'], 'queued', { attemptIncrement: true, now }))) {
          throw new UserError(`Run #${run.seq} changed while deciding; look at it again.`);
        }
      });
      onQueued();
      return { runId: id };
    },
  };
}

/** Waits, or stops waiting as soon as the watcher leaves. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function keyColumns(ref: { scope: string; key: string }) {
  return { keyScope: ref.scope, key: ref.key };
}

export type RunService = ReturnType<typeof runService>;
