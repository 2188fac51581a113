/**
 * The shortcut from a filtered list: "Rerun all failed runs…" (or those that need review)
 * asks the page to open the Recover… dialog with those choices made — that status, this
 * flow, all time — so the one summed preview, the progress and the report are the same as
 * for any recovery. The dialog belongs to the page, not to this bar: the rerun empties the
 * list the bar stands on, and the dialog must stay to show its progress.
 */
type BulkStatus = 'failed' | 'needs_review';

interface BulkRerunProps {
  status: BulkStatus;
  /** How many runs the list shows; with none, nothing is offered. */
  shown: number;
  flowName?: string;
  /** Opens the page's Recover… dialog with this status chosen. */
  onRecover(status: BulkStatus): void;
}

export function BulkRerun({ status, shown, flowName, onRecover }: BulkRerunProps) {
  const which = status === 'failed' ? 'failed runs' : 'runs that need review';
  if (shown === 0) return null;
  return (
    <div className="bulk-bar" role="region" aria-label="Rerun many runs">
      <p>Fixed the cause? Rerun all {which}{flowName ? ` of “${flowName}”` : ''} at once. You see what will happen first.</p>
      <button type="button" className="button-primary" onClick={() => onRecover(status)}>
        Rerun all {which}…
      </button>
    </div>
  );
}
