import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { Dialog } from '../runs/Dialog.tsx';
import '../runs/runs.css';

export type KeyChangeSummary = inferRouterOutputs<AppRouter>['flows']['keyChanges'];

/**
 * Before a publish that changes a side-effect step's key: what that means for the events
 * already seen, per step, in words and with a few old → new keys. Publishing needs the
 * click on the confirm button; the server refuses a key change without it.
 */
export function PublishKeyChangesDialog({ summary, busy, onConfirm, onClose }: { summary: KeyChangeSummary; busy: boolean; onConfirm(): void; onClose(): void }) {
  const atLimit = summary.events >= summary.limit;
  return (
    <Dialog
      title="This publish changes idempotency keys"
      onClose={onClose}
      testId="publish.key-changes"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button type="button" className="button-primary" onClick={onConfirm} disabled={busy} data-testid="publish.confirm-key-changes">
            {busy ? 'Publishing…' : 'Publish with the new keys'}
          </button>
        </>
      }
    >
      <p className="dialog__intro">
        A step does its work at most once per key. With a new key, events it already handled look new to it: if one is replayed, or
        its sender delivers it again, the step acts again. This compares the {atLimit ? `newest ${summary.limit}` : summary.events} past
        {summary.events === 1 ? ' event' : ' events'} of this flow under version {summary.liveVersion}'s keys and the new ones.
      </p>
      {summary.steps.map((step) => (
        <section key={step.nodeId} className="key-change" data-testid="publish.key-change">
          <h3 className="key-change__title">{step.label}</h3>
          <p className="key-change__templates">
            <code>{templateOf(step.live)}</code> → <code>{templateOf(step.draft)}</code>
          </p>
          <ul className="key-change__sentences">
            {step.sentences.map((sentence) => <li key={sentence}>{sentence}</li>)}
          </ul>
          {step.examples.length > 0 && (
            <>
              <p className="key-change__examples-title">For example:</p>
              <ul className="key-change__examples">
                {step.examples.map((example) => (
                  <li key={`${example.from}→${example.to}`}>
                    <code>{example.from}</code> → <code>{example.to}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      ))}
    </Dialog>
  );
}

function templateOf(key: { key: string; keyScope: string | null }): string {
  return key.keyScope ? `${key.keyScope} / ${key.key}` : key.key;
}
