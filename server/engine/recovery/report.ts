/**
 * The recovery report: what was asked, by whom and when; the runs included and what became
 * of each; per step, how often it acted, was stopped as a duplicate or was skipped; the
 * uncertain steps and who resolved them; the keys that had expired. The steps' figures are
 * read from the timelines of the runs doing the work, in batches of runs, counting only
 * the attempts the recovery started (a rerun's earlier attempts are not its work).
 */
import type { Db } from '../../store/db.ts';
import { operationRunsPage, runHeads, stepOutcomeEvents } from '../../store/operations.ts';
import type { OperationRow, OperationRunRow } from '../../store/types.ts';
import type { PlanCache } from '../flow-plan.ts';
import { SETTLED_RUN_STATUSES, type RunStatus } from '../types.ts';
import type { RecoveryPreview } from './preview.ts';
import type { AskedRecovery } from './request.ts';

/** Runs whose timelines are read per statement. */
const PAGE = 500;

export interface StepEffects {
  nodeId: string;
  label: string;
  sideEffect: boolean;
  /** Side-effect steps: the work was done (an email sent, a service called). */
  acted: number;
  /** Plain steps that ran (they change nothing outside Onceflow). */
  ran: number;
  duplicates: number;
  skipped: number;
  failed: number;
  uncertain: number;
}

export interface UncertainStep {
  runId: string;
  seq: number | null;
  nodeId: string;
  label: string;
  key: string | null;
  decision: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
}

export interface ReportRun {
  position: number;
  runId: string;
  seq: number | null;
  outcome: 'pending' | 'queued' | 'passed';
  workRunId: string | null;
  workSeq: number | null;
  status: RunStatus | null;
  acted: number;
  duplicates: number;
  skipped: number;
  uncertain: number;
  note: string | null;
}

export interface RecoveryReport {
  operation: Omit<OperationRow, 'request' | 'preview'>;
  asked: AskedRecovery;
  preview: RecoveryPreview | null;
  totals: { included: number; queued: number; passed: number; pending: number; settled: number; stillGoing: number; acted: number; duplicates: number; skipped: number; uncertain: number };
  /** Final statuses of the runs doing the work. */
  statuses: Partial<Record<RunStatus, number>>;
  steps: StepEffects[];
  uncertain: UncertainStep[];
  expiredKeys: RecoveryPreview['expiredKeys'];
  runs: ReportRun[];
}

const stepOf = (nodeId: string) => nodeId.split('@')[0] ?? nodeId;

export async function buildReport(db: Db, plans: PlanCache, operation: OperationRow): Promise<RecoveryReport> {
  const { request, preview, ...head } = operation;
  const steps = new Map<string, StepEffects>();
  const uncertain: UncertainStep[] = [];
  const runs: ReportRun[] = [];
  const statuses: Partial<Record<RunStatus, number>> = {};
  const totals = { included: 0, queued: 0, passed: 0, pending: 0, settled: 0, stillGoing: 0, acted: 0, duplicates: 0, skipped: 0, uncertain: 0 };
  let after = -1;
  for (;;) {
    const page = await operationRunsPage(db, operation.id, after, PAGE);
    if (page.length === 0) break;
    after = page.at(-1)!.position;
    await readPage(db, plans, page, { steps, uncertain, runs, statuses, totals });
  }
  return {
    operation: head, asked: request as AskedRecovery, preview: (preview as RecoveryPreview | null) ?? null, totals, statuses,
    steps: [...steps.values()], uncertain, expiredKeys: (preview as RecoveryPreview | null)?.expiredKeys ?? [], runs,
  };
}

interface Tally {
  steps: Map<string, StepEffects>;
  uncertain: UncertainStep[];
  runs: ReportRun[];
  statuses: Partial<Record<RunStatus, number>>;
  totals: RecoveryReport['totals'];
}

async function readPage(db: Db, plans: PlanCache, page: readonly OperationRunRow[], tally: Tally): Promise<void> {
  const work = page.filter((row) => row.targetRunId !== null);
  const heads = await runHeads(db, [...new Set([...page.map((row) => row.runId), ...work.map((row) => row.targetRunId!)])]);
  const events = await stepOutcomeEvents(db, work.map((row) => row.targetRunId!));
  const fromAttempt = new Map(work.map((row) => [row.targetRunId!, row.attempt ?? 1]));
  const perRun = new Map<string, { acted: number; duplicates: number; skipped: number; uncertain: number }>();
  const openUncertain = new Map<string, UncertainStep>();
  for (const event of events) {
    if (event.attempt < (fromAttempt.get(event.runId) ?? 1)) continue;
    const head = heads.get(event.runId);
    const plan = head ? await plans.get(head.versionId) : null;
    const planned = plan?.steps.get(stepOf(event.nodeId));
    const stepId = stepOf(event.nodeId);
    let step = tally.steps.get(stepId);
    if (!step) {
      step = { nodeId: stepId, label: planned?.label ?? stepId, sideEffect: planned?.sideEffect ?? false, acted: 0, ran: 0, duplicates: 0, skipped: 0, failed: 0, uncertain: 0 };
      tally.steps.set(stepId, step);
    }
    const counts = perRun.get(event.runId) ?? { acted: 0, duplicates: 0, skipped: 0, uncertain: 0 };
    perRun.set(event.runId, counts);
    const data = (event.data ?? {}) as { key?: unknown; by?: unknown; at?: unknown; decision?: unknown };
    switch (event.type) {
      case 'step.succeeded':
        if (step.sideEffect) { step.acted++; counts.acted++; tally.totals.acted++; } else step.ran++;
        break;
      case 'step.duplicate':
        step.duplicates++; counts.duplicates++; tally.totals.duplicates++;
        break;
      case 'step.skipped':
        step.skipped++; counts.skipped++; tally.totals.skipped++;
        break;
      case 'step.failed':
        step.failed++;
        break;
      case 'step.uncertain': {
        step.uncertain++; counts.uncertain++; tally.totals.uncertain++;
        const entry: UncertainStep = { runId: event.runId, seq: head?.seq ?? null, nodeId: event.nodeId, label: step.label, key: typeof data.key === 'string' ? data.key : null, decision: null, resolvedBy: null, resolvedAt: null };
        tally.uncertain.push(entry);
        openUncertain.set(`${event.runId}\n${event.nodeId}`, entry);
        break;
      }
      case 'step.resolved': {
        const entry = openUncertain.get(`${event.runId}\n${event.nodeId}`);
        if (entry) {
          entry.decision = typeof data.decision === 'string' ? data.decision : null;
          entry.resolvedBy = typeof data.by === 'string' ? data.by : null;
          entry.resolvedAt = typeof data.at === 'string' ? data.at : null;
        }
        break;
      }
    }
  }
  for (const row of page) {
    const work = row.targetRunId ? heads.get(row.targetRunId) : undefined;
    const counts = (row.targetRunId && perRun.get(row.targetRunId)) || { acted: 0, duplicates: 0, skipped: 0, uncertain: 0 };
    tally.totals.included++;
    tally.totals[row.state]++;
    if (work) {
      tally.statuses[work.status] = (tally.statuses[work.status] ?? 0) + 1;
      if (SETTLED_RUN_STATUSES.includes(work.status)) tally.totals.settled++;
      else tally.totals.stillGoing++;
    }
    tally.runs.push({
      position: row.position, runId: row.runId, seq: heads.get(row.runId)?.seq ?? null, outcome: row.state, workRunId: row.targetRunId,
      workSeq: work?.seq ?? null, status: work?.status ?? null, ...counts, note: row.note,
    });
  }
}

const CSV_COLUMNS = ['run_number', 'run_id', 'outcome', 'work_run_number', 'work_run_id', 'status', 'acted', 'duplicates_stopped', 'skipped', 'uncertain', 'note'] as const;

/** One line per included run, with what its work did; a spreadsheet opens it as it is. */
export function reportCsv(report: RecoveryReport): string {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    // A leading =, +, - or @ would be read as a formula by a spreadsheet.
    const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [CSV_COLUMNS.join(',')];
  for (const run of report.runs) {
    lines.push([run.seq, run.runId, run.outcome, run.workSeq, run.workRunId, run.status, run.acted, run.duplicates, run.skipped, run.uncertain, run.note].map(cell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
