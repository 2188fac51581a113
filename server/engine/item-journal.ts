/**
 * One item's view of the run's journal inside a For each step. Steps inside the body are
 * the ordinary steps: they fail, stop for review or park "the run" as they would at the top
 * level. Here such an ending is only the item's: its claim's outcome, checkpoint and step
 * events are written as usual (one fenced transaction), the `run.*` events are held back,
 * and the loop decides the run's ending once the items in flight have finished.
 */
import type { FlushOptions, StepJournal } from './run-journal.ts';
import type { CheckpointRow, TimelineEventType } from './types.ts';
import type { ChildWait } from '../store/child-runs.ts';

/** How an item stopped before its body was through, as the step asked for the run. */
export interface ItemEnding {
  status: 'failed' | 'needs_review' | 'waiting';
  message: string;
  /** The item's step that ended it (`send@37`). */
  nodeId: string | null;
  wakeAt?: number | null;
  /** The child runs it waits for (Run flow steps), for the loop's parking of the run. */
  waitsFor?: readonly ChildWait[];
}

export class ItemJournal implements StepJournal {
  ending: ItemEnding | undefined;
  /** A side-effect step of this item found its key already done (`step.duplicate`). */
  duplicate = false;
  /** Something happened to this item in this attempt beyond skipping steps already recorded. */
  moved = false;
  private lastStep: string | null = null;

  constructor(private readonly parent: StepJournal) {}

  get run() {
    return this.parent.run;
  }

  get planSteps() {
    return this.parent.planSteps;
  }

  event(type: TimelineEventType, nodeId: string | null, data: Record<string, unknown> | null = null): void {
    // The run's own events are the loop's to write, once it knows how the run ends.
    if (type.startsWith('run.')) return;
    if (type === 'step.duplicate') this.duplicate = true;
    if (type !== 'step.skipped') this.moved = true;
    if (nodeId !== null) this.lastStep = nodeId;
    this.parent.event(type, nodeId, data);
  }

  checkpoint(nodeId: string, status: CheckpointRow['status'], output: unknown, key?: { scope: string; key: string }): void {
    this.parent.checkpoint(nodeId, status, output, key);
  }

  async flush(options: FlushOptions = {}): Promise<void> {
    const { claim, ending, waitsFor } = options;
    if (ending) {
      if (ending.status === 'succeeded' || ending.status === 'held') throw new Error(`A step inside a For each cannot end the run as ${ending.status}.`);
      this.ending = { status: ending.status, message: ending.error ?? '', nodeId: this.lastStep, wakeAt: ending.wakeAt ?? null, ...(waitsFor ? { waitsFor } : {}) };
    }
    // Without an ending the write still proves the run's lease (or the claim's fence).
    // The item's park is not the run's: what it waits for goes with the loop's (for-each.ts).
    await this.parent.flush(claim ? { claim } : {});
  }
}
