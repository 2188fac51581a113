/**
 * Batches as one array parameter: rows keep their order, strings in arrays pass the
 * masker like any parameter, and on PostgreSQL one statement is prepared whatever the
 * batch size.
 */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { readClaims, tryClaim } from './claims.ts';
import { concatRows } from './batch.ts';
import { openDatabase, type ParamMasker } from './db.ts';
import { migrate } from './migrate.ts';
import { heartbeatRuns, insertRun, leaseRuns } from './runs.ts';
import { listEvents, insertEvents, loadCheckpoints, upsertCheckpoints } from './timeline.ts';
import type { TimelineEvent } from './types.ts';

const event = (runId: string, index: number): TimelineEvent => ({
  runId, type: 'step.started', nodeId: `n${index}`, attempt: 1, data: index % 3 === 0 ? null : { index, text: `"quoted" \\ ${index}` }, createdAt: 1000 + index,
});

describe('concatRows', () => {
  it('joins the lists one level deep, in order, keeping items that are lists themselves', () => {
    const rows: unknown[][] = [['a', 1, null], [], [['nested'], { json: true }], [undefined, 0]];
    expect(concatRows(rows)).toEqual(['a', 1, null, ['nested'], { json: true }, undefined, 0]);
    expect(concatRows(rows)[3]).toBe(rows[2]![0]);
    expect(concatRows([])).toEqual([]);
  });
});

for (const kind of testDatabases()) {
  describe(`batches on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);

    it('writes a batch of events in its order, whatever its size', async () => {
      for (const size of [1, 2, 7, 300]) {
        const runId = `run_order_${size}`;
        const events = Array.from({ length: size }, (_, index) => event(runId, index));
        await database().transaction((tx) => insertEvents(tx, events));
        const stored = await listEvents(database(), runId);
        expect(stored.map(({ id: _id, ...rest }) => rest)).toEqual(events);
        expect(stored.map((row) => row.id)).toEqual([...stored.map((row) => row.id!)].sort((a, b) => a - b));
      }
    });

    it('gives back every text field of a batch exactly as written, whatever it looks like', async () => {
      // Rows travel as JSON (jsonb on PostgreSQL): a string that reads as a number, a literal
      // or JSON must come back as the same text, never normalised.
      const texts = ['007', '1e3', '1.50', 'true', 'null', '{"a": 1,  "b":[ ]}', ' spaced ', 'tab\tline\nend', '\\u0041', 'ünï 🦄 中文', ''];
      const runId = 'run_texts';
      const events = texts.map((text, index): TimelineEvent => ({
        runId, type: 'step.started', nodeId: text, attempt: 1, data: { text, raw: `{"a": 1,  "b":[ ]}${text}` }, createdAt: 2000 + index,
      }));
      await database().transaction((tx) => insertEvents(tx, [...events, ...events.map((row) => ({ ...row, runId: `${runId}_many` }))]));
      for (const id of [runId, `${runId}_many`]) {
        const stored = await listEvents(database(), id);
        expect(stored.map((row) => [row.nodeId, row.data])).toEqual(events.map((row) => [row.nodeId, row.data]));
      }
    });

    it('upserts checkpoints in one statement and never replaces a settled one', async () => {
      const runId = 'run_checkpoints';
      const checkpoint = (nodeId: string, status: 'succeeded' | 'waiting', output: unknown) =>
        ({ runId, nodeId, status, output, keyScope: null, key: null, attempt: 1, createdAt: 1 });
      await database().transaction((tx) => upsertCheckpoints(tx, [checkpoint('a', 'succeeded', { v: 1 }), checkpoint('b', 'waiting', null)]));
      await database().transaction((tx) => upsertCheckpoints(tx, [checkpoint('a', 'waiting', { v: 2 }), checkpoint('b', 'succeeded', { v: 3 })]));
      const rows = (await loadCheckpoints(database(), runId)).sort((x, y) => x.nodeId.localeCompare(y.nodeId));
      expect(rows.map((row) => [row.nodeId, row.status, row.output])).toEqual([['a', 'succeeded', { v: 1 }], ['b', 'succeeded', { v: 3 }]]);
    });

    it('reads the claims of many steps in one statement, leaving out the ones that do not exist', async () => {
      const refs = Array.from({ length: 40 }, (_, index) => ({ scope: `flow:${index % 4}`, key: `order-${index}` }));
      for (const ref of refs.filter((_, index) => index % 2 === 0)) {
        await database().durably((sql) => tryClaim(sql, {
          ...ref, fingerprint: 'h', request: {}, runId: 'run_x', nodeId: 'n', leaseUntil: 10, expiresAt: 1e13, now: 1,
        }));
      }
      const claims = await readClaims(database(), [...refs, { scope: 'flow:0', key: 'order-1' }]);
      expect(claims.map((claim) => claim.key).sort()).toEqual(refs.filter((_, index) => index % 2 === 0).map((ref) => ref.key).sort());
      expect(await readClaims(database(), [])).toEqual([]);
    });

    it('finds a key holding half an emoji through a batch as stored through a parameter of its own', async () => {
      const ref = { scope: 'flow:surrogate', key: 'order-\ud83d-' };
      await database().durably((sql) => tryClaim(sql, {
        ...ref, fingerprint: 'h', request: {}, runId: 'run_s', nodeId: 'n', leaseUntil: 10, expiresAt: 1e13, now: 1,
      }));
      expect(await readClaims(database(), [ref])).toHaveLength(1);
      await database().transaction((tx) => upsertCheckpoints(tx, [{ runId: 'run_s', nodeId: 'n', status: 'succeeded', output: null, keyScope: ref.scope, key: ref.key, attempt: 1, createdAt: 1 }]));
      const stored = await database().get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM checkpoints c JOIN claims k ON k.scope = c.key_scope AND k.key = c.key WHERE c.run_id = ?`, ['run_s'],
      );
      expect(Number(stored?.n)).toBe(1);
    });

    it('heartbeats the runs still held at their fence, in one statement', async () => {
      for (const id of ['run_h1', 'run_h2', 'run_h3']) {
        await database().transaction((tx) => insertRun(tx, {
          id, flowId: 'f', versionId: 'v', input: {}, triggerKind: 'manual', triggerNode: null, eventId: null, replayOf: null, createdAt: 1, createdBy: 'test',
        }));
      }
      const leased = await leaseRuns(database(), { workerId: 'w', limit: 10, leaseMs: 1000, now: 2 });
      const held = leased.filter((run) => run.id.startsWith('run_h')).map((run) => ({ id: run.id, fence: run.leaseFence }));
      expect(held).toHaveLength(3);
      const stale = { ...held[1]!, fence: held[1]!.fence - 1 };
      expect(await heartbeatRuns(database(), [held[0]!, stale, held[2]!, { id: 'run_missing', fence: 1 }], 5000)).toEqual([stale.id, 'run_missing']);
    });

    it('masks the strings inside an array parameter, as any other parameter', async () => {
      const masker: ParamMasker = { active: true, text: (value) => value.replaceAll('hunter22', '••••••') };
      const masked = await kind.create();
      const db = await openDatabase(masked.url, { masker });
      try {
        await migrate(db);
        await db.transaction((tx) => insertEvents(tx, [{ ...event('run_masked', 1), nodeId: 'step hunter22' }]));
        expect((await listEvents(db, 'run_masked'))[0]?.nodeId).toBe('step ••••••');
        // A lookup is masked the same way, so it finds the masked row.
        expect(await readClaims(db, [{ scope: 'hunter22', key: 'k' }])).toEqual([]);
      } finally {
        await db.close();
        await masked.drop();
      }
    });

    it.runIf(kind.name === 'postgresql')('prepares one statement for a batch of any size', async () => {
      const prepared = await database().transaction(async (tx) => {
        for (const size of [1, 3, 20]) await insertEvents(tx, Array.from({ length: size }, (_, index) => event('run_prepared', index)));
        return tx.all<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
      });
      expect(prepared.filter((row) => row.statement.includes('INSERT INTO timeline_events'))).toHaveLength(1);
    });
  });
}
