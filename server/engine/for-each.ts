/**
 * The For each step (DESIGN.md §3): renders its list, checks the limit before the first
 * item, and runs its body once per item, one after another or up to `concurrency` at once.
 *
 * Each item's run of a body step is an ordinary step named `<step>@<position>` (`send@37`,
 * counting from 1): its checkpoint, its events and the owner of its claim carry that name,
 * so a rerun or a restart skips what the records say finished and resumes at the first
 * item that did not. Keys are claimed in the step's own scope, rendered with the item, so
 * the key (not the position) decides whether an item's work was already done.
 *
 * An item that fails stops new items from starting (unless `onItemError: continue`); the
 * items in flight finish, then the loop fails the run. An item that stops for review does
 * the same and the run waits for a person. An item that waits (a delay, a claim held
 * elsewhere) lets the others go on; the run parks until the earliest wake-up, and on
 * waking the finished items are skipped. Pausing the flow stops new items from starting;
 * once those in flight are recorded the run holds, and Resume goes on from the first item
 * not done.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import { FOR_EACH } from '../../core/step-kinds.ts';
import { MissingPathError } from '../../core/templates/render.ts';
import { UserError } from './errors.ts';
import type { TypedStep } from './flow/planned-step.ts';
import { ItemJournal, type ItemEnding } from './item-journal.ts';
import { readFlowPause } from '../store/pause.ts';
import { holdIfPaused } from './flow-pause.ts';
import { failRun } from './run-endings.ts';
import { RunJournal } from './run-journal.ts';
import type { StepWalk, WalkOptions, walkSteps } from './run-executor.ts';
import { createRenderer, type StepResult } from './step-runtime.ts';

/** How many failed items a loop's summary lists by name (the rest are counted). */
const LISTED_FAILURES = 100;

export interface LoopSummary {
  items: number;
  /** Items whose body finished (in this attempt or an earlier one), duplicates aside. */
  done: number;
  /** Items whose side effect was already done under its key, so it was not done again. */
  duplicates: number;
  failed: number;
  review: number;
  waiting: number;
  /** Items skipped whole because an earlier attempt had finished them. */
  resumed: number;
}

/** What a failed item leaves in the loop's list of results (with `onItemError: continue`). */
export interface FailedItem {
  failed: true;
  item: number;
  message: string;
}

export async function runForEach(walk: StepWalk, step: TypedStep<'for.each'>, walkBody: typeof walkSteps): Promise<StepResult> {
  const { journal, deps } = walk;
  const body = walk.plan.bodies.get(step.id);
  if (!body) return failRun(journal, step.id, `Step "${step.label}" has no steps inside it, so there is nothing to run for each item.`);
  const items = renderItems(walk, step);
  if (typeof items === 'string') return failRun(journal, step.id, items);
  const maxItems = step.data.maxItems ?? FOR_EACH.defaultMaxItems;
  if (items.length > maxItems) {
    return failRun(journal, step.id, `The list has ${items.length.toLocaleString('en')} items, more than the ${maxItems.toLocaleString('en')} that step "${step.label}" may run (Most items). No item was run. Raise the limit or send a shorter list.`);
  }
  const concurrency = Math.min(step.data.concurrency ?? FOR_EACH.defaultConcurrency, FOR_EACH.maxConcurrency);
  const stopOnError = (step.data.onItemError ?? 'stop') === 'stop';
  journal.event('step.started', step.id, { items: items.length, concurrency });
  // Every item in flight listens to the run's abort signal (its HTTP call, its waits).
  if (getMaxListeners(walk.signal) < concurrency * 2 + 10) setMaxListeners(concurrency * 2 + 10, walk.signal);

  const outputs: unknown[] = new Array<unknown>(items.length).fill(null);
  const summary: LoopSummary = { items: items.length, done: 0, duplicates: 0, failed: 0, review: 0, waiting: 0, resumed: 0 };
  // Held at each item's index: lanes finish items in any order, and what the loop reports
  // (the failure that stops it, the failed items it lists, the item that needs review) goes
  // by the list's order, whichever finished first.
  const failures: FailedItem[] = [];
  const reviews: ItemEnding[] = [];
  const waits: ItemEnding[] = [];
  const bodyOptions: WalkOptions = { roots: body.roots };
  let next = 0;
  // Set by a failed or uncertain item (with `onItemError: stop`): no new item starts.
  let stopped = false;
  let thrown: { error: unknown } | undefined;

  const runItem = async (index: number): Promise<void> => {
    const position = index + 1;
    const itemJournal = new ItemJournal(journal);
    const context = { ...walk.context, steps: { ...walk.context.steps }, item: items[index], loop: { index: position, count: items.length } };
    const itemWalk: StepWalk = { ...walk, journal: itemJournal, context, render: createRenderer(context, deps.clock), item: position };
    const result = await walkBody(itemWalk, body.order, bodyOptions);
    if (result.kind === 'done') {
      outputs[index] = result.output;
      if (itemJournal.duplicate) summary.duplicates++;
      else summary.done++;
      if (!itemJournal.moved) summary.resumed++;
      return;
    }
    const ending = itemJournal.ending;
    if (!ending) throw new Error(`Item ${position} of step ${step.id} ended without saying how.`);
    if (ending.status === 'failed') {
      summary.failed++;
      const failure: FailedItem = { failed: true, item: position, message: ending.message };
      outputs[index] = failure;
      failures[index] = failure;
      if (stopOnError) stopped = true;
    } else if (ending.status === 'needs_review') {
      summary.review++;
      reviews[index] = ending;
      if (stopOnError) stopped = true;
    } else {
      summary.waiting++;
      waits[index] = ending;
    }
  };

  // Pausing the flow stops a long list between items, as it stops a run between steps.
  const pauseCheck = pauseWatch(walk);
  let paused = false;
  // Lanes take the next item until the list is done or something stops the loop; an item
  // in flight always finishes, so each claim it won is recorded.
  const canStart = () => !stopped && !paused && !thrown && next < items.length;
  const lane = async () => {
    while (canStart()) {
      if (await pauseCheck()) paused = true;
      // Asked again after the wait: another lane may have taken the last item meanwhile.
      if (!canStart()) break;
      const index = next++;
      await runItem(index).catch((error: unknown) => {
        thrown ??= { error };
      });
    }
  };
  for (;;) {
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length - next) }, lane));
    if (thrown) throw thrown.error;
    if (!paused || stopped || next >= items.length) break;
    // The items in flight have finished and are recorded: hold the run, to go on from the
    // first item not done when the flow is resumed. Resumed already: carry on.
    if (walk.journal instanceof RunJournal && (await holdIfPaused(deps.db, walk.journal))) return { kind: 'ended' };
    paused = false;
  }
  return finishLoop(walk, step, { outputs, summary, failures: inItemOrder(failures), reviews: inItemOrder(reviews), waits: inItemOrder(waits), stopOnError });
}

/** The entries of a list held by item index, in that order, without the items that have none. */
const inItemOrder = <T>(byIndex: readonly T[]): T[] => byIndex.filter(() => true);

/** How often, at most, a running loop looks whether its flow was paused. */
const PAUSE_CHECK_MS = 200;

/**
 * Whether the run's flow is paused, looked up at most every PAUSE_CHECK_MS (one primary-key
 * read): a loop of 10,000 quick items does not read it 10,000 times. Top level only, as
 * the executor's check between steps; a run in a test or a probe has no journal to hold.
 */
function pauseWatch(walk: StepWalk): () => Promise<boolean> {
  if (!(walk.journal instanceof RunJournal)) return async () => false;
  const { db, clock } = walk.deps;
  const flowId = walk.run.flowId;
  // The executor looked just before the loop began.
  let lastLook = clock.now();
  return async () => {
    const now = clock.now();
    if (now - lastLook < PAUSE_CHECK_MS) return false;
    lastLook = now;
    return (await readFlowPause(db, flowId)) !== null;
  };
}

/** The list to walk, or a sentence saying why there is none. */
function renderItems(walk: StepWalk, step: TypedStep<'for.each'>): unknown[] | string {
  let items: unknown;
  try {
    items = walk.render.value(step.data.items);
  } catch (error) {
    if (error instanceof MissingPathError || error instanceof UserError) return `Step "${step.label}" could not read its list (Items): ${error.message}`;
    throw error;
  }
  if (Array.isArray(items)) return items;
  return `Step "${step.label}" needs a list in Items, but ${step.data.items.trim()} is ${describeValue(items)}. Pick a field that holds a list, e.g. {{ trigger.body.items }}.`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (typeof value === 'string') return `the text "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return 'a yes/no value';
  return 'a group of fields, not a list';
}

interface LoopResults {
  outputs: unknown[];
  summary: LoopSummary;
  failures: FailedItem[];
  reviews: ItemEnding[];
  waits: ItemEnding[];
  stopOnError: boolean;
}

/** The loop's ending: review first (a person must look), then failure, then a wait; else its list. */
async function finishLoop(walk: StepWalk, step: TypedStep<'for.each'>, results: LoopResults): Promise<StepResult> {
  const { journal } = walk;
  const { outputs, summary, failures, reviews, waits } = results;
  const [review] = reviews;
  if (review) {
    const message = `${itemName(review.nodeId, summary.items)} needs review: ${review.message}`;
    journal.event('run.needs_review', null, { nodeId: review.nodeId, message, loop: step.id, summary });
    await journal.flush({ ending: { status: 'needs_review', error: message } });
    return { kind: 'ended' };
  }
  const [failure] = failures;
  if (failure && results.stopOnError) {
    const message = `Item ${failure.item} of ${summary.items} failed: ${failure.message}`;
    return failRun(journal, step.id, message, { details: { summary, item: failure.item } });
  }
  if (waits.length > 0) {
    const wakeAt = Math.min(...waits.map((wait) => wait.wakeAt ?? walk.deps.clock.now() + 1000));
    journal.event('step.waiting', step.id, { until: wakeAt, message: `${summary.waiting} of ${summary.items} items are waiting; the others are done.`, summary });
    // An item's child run that ended while other items went on wakes the run at once.
    const waitsFor = waits.flatMap((wait) => wait.waitsFor ?? []);
    await journal.flush({ ending: { status: 'waiting', wakeAt }, ...(waitsFor.length ? { waitsFor } : {}) });
    return { kind: 'ended' };
  }
  journal.checkpoint(step.id, 'succeeded', outputs);
  // The list itself is in the checkpoint; the event stays small however long the list is.
  journal.event('step.succeeded', step.id, { summary, ...(failures.length ? { failedItems: failures.slice(0, LISTED_FAILURES) } : {}) });
  return { kind: 'done', output: outputs };
}

/** "Item 37 of 100" from an item's step name (`send@37`). */
function itemName(nodeId: string | null, count: number): string {
  const position = nodeId?.split('@')[1];
  return position ? `Item ${position} of ${count}` : 'An item';
}
