/** The short chaos run of `npm test`: 20 seeded random-time kills per database. */
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../testing/databases.ts';
import { runChaos } from './chaos.ts';

for (const kind of testDatabases()) {
  describe(`random kills on ${kind.name}`, () => {
    it('20 seeded SIGKILLs: no duplicate effect, no lost run', async () => {
      const database = await kind.create();
      try {
        const report = await runChaos({
          databaseUrl: database.url,
          workers: kind.name === 'postgresql' ? 3 : 0,
          trials: 20,
          seed: 20261129,
          runsPerTrial: 6,
        });
        expect(report.kills).toBe(20);
        expect(report.runs).toBeGreaterThan(60);
        expect(report.duplicates).toBe(0);
        expect(report.lost).toBe(0);
        expect(report.failed).toBe(0);
        expect(report.effectsSeen).toBeLessThanOrEqual(report.effectsExpected);
      } finally {
        await database.drop();
      }
    }, 300_000);
  });
}
