/**
 * The runs the editor reads back: the latest run of a flow started by hand, whose step
 * outputs Try this step renders later steps with.
 */
import type { Sql } from './db.ts';
import { RUN_COLUMNS, toRun } from './rows.ts';
import type { RunRow } from './types.ts';

/** The flow's newest run with this trigger kind (`manual` for runs started from the editor), if any. */
export async function latestRunOfKind(sql: Sql, flowId: string, triggerKind: string): Promise<RunRow | undefined> {
  const row = await sql.get(`SELECT ${RUN_COLUMNS} FROM runs WHERE flow_id = ? AND trigger_kind = ? ORDER BY seq DESC LIMIT 1`, [flowId, triggerKind]);
  return row ? toRun(row) : undefined;
}
