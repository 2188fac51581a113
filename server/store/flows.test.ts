/** Flows, versions and triggers on the one seam: numbering under concurrent publishes, hooks kept across versions, deletes. */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { flowStore } from './flows.ts';
import { findHook, listScheduleTriggers, recordScheduleFire } from './triggers.ts';

for (const kind of testDatabases()) {
  describe(`flow store on ${kind.name}`, () => {
    const database = useMigratedDatabase(kind);
    const version = (flowId: string, id: string, createdAt = 10) => ({ id, flowId, document: `{"v":"${id}"}`, createdAt, createdBy: 'test' });

    it('numbers versions in order, also when ten publish at once', async () => {
      const store = flowStore(database());
      await store.create({ id: 'flow_a', name: 'A', draft: '{}', createdAt: 1, updatedAt: 1 });
      const published = await Promise.all(Array.from({ length: 10 }, (_, index) => store.publish(version('flow_a', `ver_${index}`), [])));
      expect(published.map((row) => row.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await store.versions('flow_a')).map((row) => row.version)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      expect((await store.latestVersion('flow_a'))?.version).toBe(10);
      expect(await store.versionNumbers(['ver_0', 'ver_9', 'ver_unknown'])).toEqual(new Map([
        ['ver_0', published[0]!.version], ['ver_9', published[9]!.version],
      ]));
      expect((await store.list()).find((flow) => flow.id === 'flow_a')).toMatchObject({ name: 'A', latestVersion: 10 });
    });

    it('lists a flow with only test snapshots as not published', async () => {
      const store = flowStore(database());
      await store.create({ id: 'flow_t', name: 'T', draft: '{}', createdAt: 1, updatedAt: 1 });
      await store.snapshotForTest(version('flow_t', 'ver_t1'));
      expect((await store.list()).find((flow) => flow.id === 'flow_t')).toMatchObject({ latestVersion: null });
      await store.publish(version('flow_t', 'ver_t2'), []);
      expect((await store.list()).find((flow) => flow.id === 'flow_t')).toMatchObject({ latestVersion: 1 });
    });

    it('keeps a trigger node\'s hook id across versions and finds the hook with the latest version', async () => {
      const store = flowStore(database());
      await store.create({ id: 'flow_b', name: 'B', draft: '{}', createdAt: 1, updatedAt: 1 });
      await store.publish(version('flow_b', 'ver_b1'), [{ hookId: 'hook_b', nodeId: 'in', kind: 'trigger.webhook' }, { hookId: 'hook_s', nodeId: 'tick', kind: 'trigger.schedule' }]);
      await store.publish(version('flow_b', 'ver_b2', 20), [{ hookId: 'hook_ignored', nodeId: 'in', kind: 'trigger.webhook' }]);
      expect(await store.triggers('flow_b')).toEqual([
        { hookId: 'hook_b', flowId: 'flow_b', nodeId: 'in', kind: 'trigger.webhook' },
        { hookId: 'hook_s', flowId: 'flow_b', nodeId: 'tick', kind: 'trigger.schedule' },
      ]);
      expect(await findHook(database(), 'hook_b')).toEqual({ hookId: 'hook_b', flowId: 'flow_b', nodeId: 'in', kind: 'trigger.webhook', versionId: 'ver_b2' });
      expect(await findHook(database(), 'hook_ignored')).toBeUndefined();

      await recordScheduleFire(database(), 'hook_s', 5000);
      await recordScheduleFire(database(), 'hook_s', 4000);
      expect((await listScheduleTriggers(database())).find((trigger) => trigger.hookId === 'hook_s')).toMatchObject({ lastFireAt: 5000, createdAt: 10, versionId: 'ver_b2' });
    });

    it('saves drafts and deletes a flow with its versions and triggers', async () => {
      const store = flowStore(database());
      await store.create({ id: 'flow_c', name: 'C', draft: '{}', createdAt: 1, updatedAt: 1 });
      expect(await store.saveDraft('flow_c', 'C2', '{"x":1}', 7)).toBe(true);
      expect(await store.saveDraft('flow_missing', 'X', '{}', 7)).toBe(false);
      expect(await store.get('flow_c')).toEqual({ id: 'flow_c', name: 'C2', draft: '{"x":1}', createdAt: 1, updatedAt: 7 });
      await store.publish(version('flow_c', 'ver_c1'), [{ hookId: 'hook_c', nodeId: 'in', kind: 'trigger.webhook' }]);
      expect(await store.delete('flow_c')).toBe(true);
      expect(await store.delete('flow_c')).toBe(false);
      expect(await store.get('flow_c')).toBeNull();
      expect(await store.version('ver_c1')).toBeNull();
      expect(await store.triggers('flow_c')).toEqual([]);
    });
  });
}
