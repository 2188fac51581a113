/** PostgreSQL statements are prepared once per connection, and survive another server's migration. */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { useMigratedDatabase } from '../testing/migrated-database.ts';
import { loadCheckpoints, upsertCheckpoints } from './timeline.ts';

const postgres = testDatabases().find((candidate) => candidate.name === 'postgresql');

// Without TEST_DATABASE_URL the suite is reported as skipped (a file with no suite at all
// counts as a failed file).
describe.runIf(postgres)('statements on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const database = useMigratedDatabase(postgres!);

  it('are prepared by name, once per connection', async () => {
    const prepared = await database().transaction(async (tx) => {
      await tx.get('SELECT COUNT(*) AS n FROM runs WHERE status = ?', ['queued']);
      await tx.get('SELECT COUNT(*) AS n FROM runs WHERE status = ?', ['failed']);
      return tx.all<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements');
    });
    const counts = prepared.filter((row) => row.statement.includes('SELECT COUNT(*) AS n FROM runs WHERE status = $1'));
    expect(counts).toHaveLength(1);
    expect(counts[0]!.name).toMatch(/^onceflow_\d+$/);
  });

  it('keep working when a newer server adds a column', async () => {
    const db = database();
    const checkpoint = { runId: 'run_1', nodeId: 'a', status: 'succeeded' as const, output: { ok: true }, keyScope: null, key: null, attempt: 1, createdAt: 1 };
    await db.durably((sql) => upsertCheckpoints(sql, [checkpoint]));
    // Every pooled connection prepares the read before the schema changes under it.
    await Promise.all(Array.from({ length: 10 }, () => loadCheckpoints(db, 'run_1')));
    await db.exec('ALTER TABLE checkpoints ADD COLUMN added_later TEXT');
    const again = await Promise.all(Array.from({ length: 10 }, () => loadCheckpoints(db, 'run_1')));
    for (const rows of again) expect(rows).toEqual([checkpoint]);
  });
});
