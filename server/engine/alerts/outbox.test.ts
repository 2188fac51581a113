/**
 * The outbox's promise to the run endings: one alert per run and state, none for a test
 * run or for a failure an automatic rerun will try again, and a dropped alert queued again
 * when its run fails anew.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../../testing/databases.ts';
import { useMigratedDatabase } from '../../testing/migrated-database.ts';
import { alertsOfRun, dropAlerts } from '../../store/alerts.ts';
import { queueRunAlert } from './outbox.ts';

for (const kind of testDatabases()) {
  describe(`the alert outbox on ${kind.name}`, () => {
    const db = useMigratedDatabase(kind);
    const run = (id: string, testScope: string | null = null) => ({ id, flowId: 'flow_1', testScope });

    it('records one alert per run and state, in the transaction of the ending', async () => {
      await db().transaction(async (tx) => {
        await queueRunAlert(tx, run('run_a'), { state: 'failed', message: 'The receiver refused it.', now: 1000 });
        await queueRunAlert(tx, run('run_a'), { state: 'failed', message: 'Again.', now: 2000 });
        await queueRunAlert(tx, run('run_a'), { state: 'needs_review', message: 'Unknown outcome.', now: 3000 });
      });
      const rows = await alertsOfRun(db(), 'run_a');
      expect(rows.map((row) => [row.alertKey, row.status, row.message, row.nextAttemptAt])).toEqual([
        ['run_a:failed', 'pending', 'The receiver refused it.', 2000],
        ['run_a:needs_review', 'pending', 'Unknown outcome.', 4000],
      ]);
    });

    it('records nothing for a test run or a failure an automatic rerun will try again; the last failure alerts', async () => {
      await queueRunAlert(db(), run('run_t', 'editor'), { state: 'failed', message: null, now: 1000 });
      await queueRunAlert(db(), run('run_r'), { state: 'failed', message: 'First try.', now: 1000, rerunScheduled: true });
      expect(await alertsOfRun(db(), 'run_t')).toEqual([]);
      expect(await alertsOfRun(db(), 'run_r')).toEqual([]);
      await queueRunAlert(db(), run('run_r'), { state: 'failed', message: 'Last try.', now: 5000 });
      expect((await alertsOfRun(db(), 'run_r')).map((row) => row.message)).toEqual(['Last try.']);
    });

    it('queues a dropped alert again when the run fails anew, and leaves a rolled-back one unwritten', async () => {
      const [row] = await alertsOfRun(db(), 'run_r');
      await dropAlerts(db(), [row!.id], 6000);
      await queueRunAlert(db(), run('run_r'), { state: 'failed', message: 'After the rerun.', now: 7000 });
      expect((await alertsOfRun(db(), 'run_r')).map((alert) => [alert.status, alert.message])).toEqual([['pending', 'After the rerun.']]);
      await expect(db().transaction(async (tx) => {
        await queueRunAlert(tx, run('run_x'), { state: 'failed', message: null, now: 1000 });
        throw new Error('the ending was refused');
      })).rejects.toThrow('the ending was refused');
      expect(await alertsOfRun(db(), 'run_x')).toEqual([]);
    });
  });
}
