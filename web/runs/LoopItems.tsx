/**
 * A For each step on the run page: its counts in one sentence ("50 items — 47 done, 3
 * duplicates stopped, 0 failed") and its items a page at a time, each with its own steps.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../lib/trpc.ts';
import { readableMessage, STEP_STATUS_WORDS } from './run-words.ts';
import type { StepInfo } from './run-types.ts';

type LoopSummary = NonNullable<StepInfo['loop']>;

const PAGE = 20;

/** "50 items — 47 done, 3 duplicates stopped, 0 failed", then whatever else is worth saying. */
export function loopSentence(loop: LoopSummary): string {
  const plural = (count: number, word: string) => `${count.toLocaleString('en')} ${word}${count === 1 ? '' : 's'}`;
  const parts = [`${loop.done.toLocaleString('en')} done`, plural(loop.duplicates, 'duplicate') + ' stopped', `${loop.failed.toLocaleString('en')} failed`];
  if (loop.review > 0) parts.push(`${loop.review.toLocaleString('en')} waiting for review`);
  if (loop.waiting > 0) parts.push(`${loop.waiting.toLocaleString('en')} waiting`);
  if (loop.running > 0) parts.push(`${loop.running.toLocaleString('en')} running`);
  if (loop.notReached > 0) parts.push(`${loop.notReached.toLocaleString('en')} not reached`);
  return `${plural(loop.items, 'item')} — ${parts.join(', ')}`;
}

/** The loop's counts on the run canvas: "47 done · 3 duplicates stopped · 0 failed". */
export function loopCounts(loop: LoopSummary): string {
  const count = (value: number) => value.toLocaleString('en');
  const parts = [`${count(loop.done)} done`, `${count(loop.duplicates)} duplicate${loop.duplicates === 1 ? '' : 's'} stopped`, `${count(loop.failed)} failed`];
  if (loop.review > 0) parts.push(`${count(loop.review)} waiting for review`);
  if (loop.waiting + loop.running > 0) parts.push(`${count(loop.waiting + loop.running)} under way`);
  return parts.join(' · ');
}

export function LoopItems({ runId, loopId, loop }: { runId: string; loopId: string; loop: LoopSummary }) {
  const [offset, setOffset] = useState(0);
  const page = useQuery(trpc.runs.loopItems.queryOptions({ runId, loopId, offset, limit: PAGE }));
  const total = page.data?.total ?? loop.items;
  const last = Math.min(total, offset + PAGE);
  return (
    <div className="loop-items">
      <p data-testid="loop.summary"><strong>{loopSentence(loop)}</strong></p>
      {total > 0 && (
        <>
          <ol className="loop-items__list" start={offset + 1} aria-label={`Items ${offset + 1} to ${last}`} data-testid="loop.items">
            {(page.data?.items ?? []).map((item) => (
              <li key={item.item} className={`loop-items__item status--${item.status}`}>
                <span className="loop-items__title">
                  <span className="status-dot" aria-hidden="true" />
                  Item {item.item}: {STEP_STATUS_WORDS[item.status]}
                </span>
                <ul>
                  {item.steps.map((step) => (
                    <li key={step.nodeId}>
                      {step.label.replace(/ — item \d+$/, '')}: {STEP_STATUS_WORDS[step.status]}
                      {step.key && <> · <code className="key-chip">{step.key}</code></>}
                      {step.lastError && step.status !== 'succeeded' && step.status !== 'duplicate' && <span className="error-note"> {readableMessage(step.lastError)}</span>}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
          {page.isPending && <p className="muted">Loading the items…</p>}
          <div className="loop-items__pager">
            <button type="button" className="button-secondary small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous items</button>
            <span className="muted" data-testid="loop.range">Items {offset + 1}–{last} of {total.toLocaleString('en')}</span>
            <button type="button" className="button-secondary small" disabled={last >= total} onClick={() => setOffset(offset + PAGE)}>Next items</button>
          </div>
        </>
      )}
    </div>
  );
}
