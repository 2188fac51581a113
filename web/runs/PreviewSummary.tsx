/** What a rerun will do, counted and (for one run) step by step, in plain words. */
import { expiredStepReason, skipSentence } from '../../core/review-words.ts';
import { formatDay, plural } from './run-words.ts';
import type { PreviewCounts, RerunPreview } from './run-types.ts';
import { TimelineIcon } from './TimelineIcon.tsx';
import type { IconName } from './timeline-sentences.ts';

type Action = keyof PreviewCounts;
type PreviewStep = RerunPreview['steps'][number];

const ACTIONS: Record<Action, { title: string; icon: IconName; tone: string }> = {
  skip: { title: 'Skipped', icon: 'skip', tone: 'skip' },
  deduplicate: { title: 'Duplicate stopped', icon: 'shield', tone: 'dedupe' },
  act: { title: 'Acts again', icon: 'play', tone: 'act' },
  review: { title: 'Waits for your decision', icon: 'question', tone: 'warn' },
};

/** The counts; `expired`: side-effect steps that act again because their key expired (of those that act). */
export function CountsLine({ counts, expired = 0 }: { counts: PreviewCounts; expired?: number }) {
  return (
    <ul className="preview-counts" aria-label="What the rerun will do">
      <li className="tone--skip"><strong>{counts.skip}</strong> {counts.skip === 1 ? 'step skipped' : 'steps skipped'}</li>
      <li className="tone--dedupe"><strong>{counts.deduplicate}</strong> {counts.deduplicate === 1 ? 'duplicate stopped' : 'duplicates stopped'}</li>
      <li className="tone--act"><strong>{counts.act}</strong> {counts.act === 1 ? 'side effect will act' : 'side effects will act'}</li>
      <li className="tone--warn"><strong>{counts.review}</strong> {counts.review === 1 ? 'waits for a decision' : 'wait for a decision'}</li>
      {expired > 0 && (
        <li className="tone--warn" data-testid="preview.expired"><strong>{expired}</strong> {expired === 1 ? 'key expired and will act again' : 'keys expired and will act again'}</li>
      )}
    </ul>
  );
}

export function PreviewSteps({ preview }: { preview: Pick<RerunPreview, 'steps' | 'removed'> }) {
  if (preview.steps.length === 0) return <p className="muted">This flow has no steps after its trigger.</p>;
  return (
    <ol className="preview-steps" data-testid="rerun.preview">
      {preview.steps.map((step) => {
        const action = ACTIONS[step.action];
        const { title, tone } = stepTitle(step, action);
        return (
          <li key={step.nodeId} className={`preview-step tone--${tone}`} data-action={step.action}>
            <span className="preview-step__icon" aria-hidden="true"><TimelineIcon name={action.icon} /></span>
            <span className="preview-step__text">
              <span className="preview-step__head">
                <strong>{step.label}</strong>
                <span className="preview-step__action">{title}</span>
              </span>
              {step.keyChange ? (
                <span className="preview-step__reason preview-step__keys">
                  Its key changed from <code>{step.keyChange.from}</code> to <code>{step.keyChange.to}</code>, so the work is done once more under the new key.
                </span>
              ) : (
                <span className="preview-step__reason">{stepReason(step)}</span>
              )}
            </span>
          </li>
        );
      })}
      {preview.removed.map((step) => (
        <li key={step.nodeId} className="preview-step tone--skip" data-action="removed">
          <span className="preview-step__icon" aria-hidden="true"><TimelineIcon name="skip" /></span>
          <span className="preview-step__text">
            <span className="preview-step__head">
              <strong>{step.label}</strong>
              <span className="preview-step__action">Will not run</span>
            </span>
            <span className="preview-step__reason">{withoutAction(step.reason)}</span>
          </span>
        </li>
      ))}
    </ol>
  );
}

/**
 * The words over one step: an acting step that never began in this run "runs for the first
 * time" (nothing alarming, so not in red); only one that began before "acts again".
 */
export function stepTitle(step: Pick<PreviewStep, 'action' | 'sideEffect' | 'ranBefore' | 'reason'> & Partial<Pick<PreviewStep, 'keyChange' | 'newInVersion' | 'expired'>>, action = ACTIONS[step.action]): { title: string; tone: string } {
  const own = { title: action.title, tone: action.tone };
  if (step.action !== 'act') return own;
  if (step.reason.startsWith('Cannot run')) return { title: 'Cannot run', tone: 'bad' };
  // Work already done is done once more: the one case a rerun asks a second click for.
  if (step.keyChange) return { title: 'Acts again — its key changed', tone: 'warn' };
  // Done before, but its key outlived its time to live: nothing stops it acting again.
  if (step.expired) return { title: 'Acts again — its key expired', tone: 'warn' };
  if (step.newInVersion) return { title: 'Runs for the first time — new in this version', tone: 'info' };
  if (!step.ranBefore) return { title: 'Runs for the first time', tone: 'info' };
  return step.sideEffect ? own : { title: 'Runs again', tone: 'info' };
}

/**
 * Why the step does what it does. A day in it is worded here, in the reader's zone, from
 * the moments beside the server's reason (whose days name UTC, server/engine/key-expiry.ts).
 */
export function stepReason(step: Pick<PreviewStep, 'reason'> & Partial<Pick<PreviewStep, 'expired' | 'skipped'>>): string {
  const { expired, skipped } = step;
  if (expired) return withoutAction(expiredStepReason(expired.key, formatDay(expired.expiredAt), expired.doneBy, formatDay(expired.doneAt)));
  if (skipped) return skipSentence(skipped.runSeq, formatDay(skipped.at));
  return withoutAction(step.reason);
}

/** The server's reason starts with the action ("Skipped: it …"), which the row already shows. */
export function withoutAction(reason: string): string {
  const rest = reason.replace(/^(?:Skipped|Acts again|Acts|Runs again(?: in v\d+)?|Runs for the first time|Duplicate stopped|Waits for (?:your|a) decision|Will not run)\s*:\s*/i, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** One sentence that says whether anything outside Onceflow will happen again. */
export function previewVerdict(counts: PreviewCounts, runs = 1): string {
  const scope = runs === 1 ? 'this run' : plural(runs, 'run');
  if (counts.act === 0 && counts.review === 0) return `Nothing outside Onceflow will be done again in ${scope}.`;
  if (counts.act === 0) return `Nothing will be done twice; ${plural(counts.review, 'step')} will wait for your decision.`;
  return `${plural(counts.act, 'side-effect step')} will act, because ${counts.act === 1 ? 'its work was' : 'their work was'} not done yet. Everything already done is skipped or stopped as a duplicate.`;
}

/** Said before a rerun or replay that meets expired keys: that work will be done once more. */
export function expiredWarning(expired: number): string {
  const steps = expired === 1 ? 'One side-effect step meets a key that has expired' : `${expired} side-effect steps meet keys that have expired`;
  return `${steps}: the work was done before, long enough ago that its key was forgotten, so it will be done again.`;
}
