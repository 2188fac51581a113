/**
 * The batcher's own rules, with statements that only record what they were given (the
 * PostgreSQL statements themselves are tested in ingest-queue.test.ts and the runs tests).
 */
import { describe, expect, it } from 'vitest';
import { statementBatcher } from './statement-batcher.ts';

function recordingStatements(options: { refuse?: (item: string) => boolean; delayMs?: number } = {}) {
  const statements: string[][] = [];
  let open = 0;
  let mostOpen = 0;
  const statement = async (items: readonly string[]) => {
    statements.push([...items]);
    open++;
    mostOpen = Math.max(mostOpen, open);
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 5));
    open--;
    if (items.some((item) => options.refuse?.(item))) throw new Error(`refused ${items.join(',')}`);
    return items.map((item) => `written ${item}`);
  };
  return { statements, mostOpen: () => mostOpen, writeBatch: statement, writeOne: async (item: string) => (await statement([item]))[0]! };
}

describe('statement batcher', () => {
  it('writes what arrives in one turn in one statement, and what arrives meanwhile in the next ones', async () => {
    const db = recordingStatements();
    const write = statementBatcher({ writeBatch: db.writeBatch, writeOne: db.writeOne, inFlight: 1 });
    const first = ['a', 'b', 'c'].map((item) => write(item));
    await new Promise((resolve) => setImmediate(resolve));
    const second = ['d', 'e'].map((item) => write(item));
    expect(await Promise.all([...first, ...second])).toEqual(['a', 'b', 'c', 'd', 'e'].map((item) => `written ${item}`));
    expect(db.statements).toEqual([['a', 'b', 'c'], ['d', 'e']]);
  });

  it('keeps at most the given number of statements on their way, and at most the bound per statement', async () => {
    const db = recordingStatements();
    const write = statementBatcher({ writeBatch: db.writeBatch, writeOne: db.writeOne, inFlight: 2, maxBatch: 4 });
    const items = Array.from({ length: 20 }, (_, index) => `i${index}`);
    await Promise.all(items.map((item) => write(item)));
    expect(db.mostOpen()).toBe(2);
    expect(Math.max(...db.statements.map((statement) => statement.length))).toBe(4);
    expect(db.statements.flat()).toEqual(items);
  });

  it('writes items of one key one statement after another, in the order they came', async () => {
    const db = recordingStatements();
    const write = statementBatcher({ writeBatch: db.writeBatch, writeOne: db.writeOne, key: (item: string) => item.split(':')[0]!, inFlight: 3 });
    await Promise.all(['x:1', 'y:1', 'x:2', 'x:3', 'y:2'].map((item) => write(item)));
    expect(db.statements).toEqual([['x:1', 'y:1'], ['x:2', 'y:2'], ['x:3']]);
  });

  it('fails only the item the database refuses: a failed batch is written again one item at a time', async () => {
    const db = recordingStatements({ refuse: (item) => item === 'bad' });
    const write = statementBatcher({ writeBatch: db.writeBatch, writeOne: db.writeOne });
    const settled = await Promise.allSettled(['ok1', 'bad', 'ok2'].map((item) => write(item)));
    expect(settled.map((each) => (each.status === 'fulfilled' ? each.value : `rejected: ${(each.reason as Error).message}`))).toEqual([
      'written ok1', 'rejected: refused bad', 'written ok2',
    ]);
    expect(db.statements).toEqual([['ok1', 'bad', 'ok2'], ['ok1'], ['bad'], ['ok2']]);
  });
});
