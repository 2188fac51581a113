/**
 * The run history on a phone: one card per run with what the table's columns say, so
 * nothing is crushed and the page never scrolls sideways.
 */
import { RunBadges } from './RunBadges.tsx';
import { followLink } from '../lib/router.ts';
import { formatDuration, formatWhen, plural, RUN_STATUS_WORDS, triggerWords } from './run-words.ts';
import type { RunListItem } from './run-types.ts';

export function RunCards({ runs, numbers, busy }: { runs: readonly RunListItem[]; numbers: ReadonlyMap<string, number>; busy: boolean }) {
  return (
    <ul className="cards" aria-label="Runs" aria-busy={busy}>
      {runs.map((run) => {
        const href = `/runs/${run.id}`;
        return (
          <li key={run.id} className="card" data-testid="runs.row" data-run-id={run.id}>
            <div className="card__head">
              <a href={href} onClick={followLink(href)} className="run-table__link">Run #{run.seq}</a>
              <span className={`status-pill status--${run.status}`} data-status={run.status}>{RUN_STATUS_WORDS[run.status]}</span>
            </div>
            <p className="card__title">
              {run.flowName ?? '—'}
              <RunBadges run={run} />
            </p>
            <p className="card__line">{triggerWords(run, numbers)}</p>
            <p className="card__line card__muted">
              {formatWhen(run.startedAt ?? run.createdAt)}
              {run.durationMs !== null && ` · took ${formatDuration(run.durationMs)}`}
            </p>
            {(run.duplicates > 0 || run.skipped > 0) && (
              <p className="card__line">
                {run.duplicates > 0 && <span className="is-dedupe">{plural(run.duplicates, 'duplicate')} stopped</span>}
                {run.duplicates > 0 && run.skipped > 0 && ' · '}
                {run.skipped > 0 && <span className="is-skip">{plural(run.skipped, 'step')} skipped</span>}
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
