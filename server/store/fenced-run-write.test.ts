/**
 * PostgreSQL's one-statement run endings, several at once: endings that arrive together
 * share a statement, and each is still fenced on its own — a stale worker's ending writes
 * nothing, not even its events, while the others of its statement are written whole.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { writeFencedRunChange } from './fenced-run-write.ts';
import { getRun, insertRun, leaseRuns, type NewRun } from './runs.ts';
import { listEvents, loadCheckpoints } from './timeline.ts';
import type { TimelineEvent } from './types.ts';

const newRun = (id: string, createdAt: number): NewRun => ({
  id, flowId: 'flow_1', versionId: 'ver_1', input: {}, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt, createdBy: 'test',
});

const events = (runId: string, now: number): TimelineEvent[] => [
  { runId, type: 'step.succeeded', nodeId: 'note', attempt: 1, data: { output: { n: runId } }, createdAt: now },
  { runId, type: 'run.succeeded', nodeId: null, attempt: 1, data: null, createdAt: now },
];

const postgres = testDatabases().find((candidate) => candidate.name === 'postgresql');

// Without TEST_DATABASE_URL the suite is reported as skipped (a file with no suite at all
// counts as a failed file).
describe.runIf(postgres)('run endings written together on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const database = useMigratedDatabase(postgres!);

  it('ends each held run with its checkpoint and events in order, and writes nothing for the one whose fence is stale', async () => {
    const db = database();
    const ids = Array.from({ length: 12 }, (_, index) => `run_${String(index).padStart(2, '0')}`);
    for (const [index, id] of ids.entries()) await db.transaction((tx) => insertRun(tx, newRun(id, 100 + index)));
    const leased = await leaseRuns(db, { workerId: 'wrk_1', limit: ids.length, leaseMs: 60_000, now: 1_000 });
    expect(leased).toHaveLength(ids.length);

    const now = 2_000;
    const written = await Promise.all(leased.map((run, index) => writeFencedRunChange(
      db,
      // The fifth run was taken over meanwhile: this worker's fence is one behind.
      index === 4 ? { id: run.id, leaseFence: run.leaseFence - 1 } : run,
      { ending: { status: 'succeeded', error: null, wakeAt: null, finishedAt: now } },
      [{ runId: run.id, nodeId: 'note', status: 'succeeded', output: { n: run.id }, keyScope: null, key: null, attempt: 1, createdAt: now }],
      events(run.id, now),
    )));
    expect(written).toEqual(leased.map((_, index) => index !== 4));

    for (const [index, run] of leased.entries()) {
      const stored = await getRun(db, run.id);
      const timeline = (await listEvents(db, run.id)).map((event) => event.type);
      const checkpoints = await loadCheckpoints(db, run.id);
      if (index === 4) {
        expect(stored).toMatchObject({ status: 'running', finishedAt: null });
        expect(timeline).toEqual(['run.queued']);
        expect(checkpoints).toEqual([]);
      } else {
        expect(stored).toMatchObject({ status: 'succeeded', finishedAt: now, leaseOwner: null });
        expect(timeline).toEqual(['run.queued', 'step.succeeded', 'run.succeeded']);
        expect(checkpoints.map((checkpoint) => [checkpoint.nodeId, checkpoint.status, checkpoint.output])).toEqual([['note', 'succeeded', { n: run.id }]]);
      }
    }
  });
});
