/**
 * Everything about one step in this run: what it was asked to do, its key and the claim
 * that guards it, what the receiver answered, and each try with its errors.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import type { FlowNode } from '../../server/engine/flow/document.ts';
import { KindIcon } from '../editor/KindIcon.tsx';
import { isTriggerKind, kindInfo, kindLabel } from '../editor/node-kinds.ts';
import { followLink } from '../lib/router.ts';
import { conditionOutcome, EXIT_WORDS } from './condition-words.ts';
import { formatDateTime, formatTime, readableMessage, runRef, RUN_STATUS_WORDS, STEP_STATUS_WORDS } from './run-words.ts';
import type { RunInfo, StepInfo, StepStatus, TimelineEntry } from './run-types.ts';
import { renderedInput, triggerOf } from './step-input.ts';
import { describeEvent, type SentenceContext } from './timeline-sentences.ts';
import { TimelineIcon } from './TimelineIcon.tsx';
import { LoopItems } from './LoopItems.tsx';

interface StepDrawerProps {
  step: StepInfo;
  status: StepStatus;
  node: FlowNode | undefined;
  run: RunInfo;
  steps: readonly StepInfo[];
  /** This step's events, oldest first. */
  events: readonly TimelineEntry[];
  context: SentenceContext;
  onClose(): void;
}

const CLAIM_WORDS: Record<string, string> = {
  in_progress: 'Being done right now',
  succeeded: 'Done',
  failed: 'Refused last time; the next try may act',
  uncertain: 'Unknown; waiting for a person to decide',
};

export function StepDrawer({ step, status, node, run, steps, events, context, onClose }: StepDrawerProps) {
  const group = kindInfo(step.type)?.group ?? 'logic';
  const trigger = isTriggerKind(step.type);
  const headingId = `drawer-${step.nodeId}`;
  const lastFailure = [...events].reverse().find((event) => event.type === 'step.failed' || event.type === 'step.retry_scheduled');
  const answer = receiverAnswer(step.output, lastFailure?.data?.response);
  const condition = step.type === 'condition' ? conditionOutcome(step.output) : null;
  // On a phone the details open below the canvas, possibly off screen: bring them into view.
  const drawer = useRef<HTMLElement>(null);
  useEffect(() => {
    drawer.current?.scrollIntoView({ block: 'nearest' });
  }, []);

  return (
    <aside ref={drawer} className="step-drawer" aria-labelledby={headingId} data-testid="step-drawer">
      <header className={`step-drawer__head inspector__head--${group}`}>
        <span className="inspector__icon"><KindIcon kind={step.type} /></span>
        <div>
          <h2 id={headingId}>{step.label}</h2>
          <p className="muted">{kindLabel(step.type)}{step.sideEffect ? ' · changes something outside Onceflow' : ''}</p>
        </div>
        <button type="button" className="icon-button" aria-label="Close step details" onClick={onClose}>×</button>
      </header>
      <div className="step-drawer__body">
        <p className={`step-drawer__status status--${status}`}>
          <span className="status-dot" aria-hidden="true" />
          <strong>{STEP_STATUS_WORDS[status]}</strong>
          <span>{statusSentence(step, status, run, events, context)}</span>
        </p>

        {!trigger && (
          <Section title="Idempotency key">
            {step.sideEffect ? (
              step.key ? (
                <dl className="facts">
                  <dt>Key</dt>
                  <dd><code className="key-chip">{step.key}</code></dd>
                  <dt>Scope</dt>
                  <dd><code>{step.keyScope}</code></dd>
                  <dt>Remembered until</dt>
                  <dd>{step.claim ? formatDateTime(step.claim.expiresAt) : '—'}</dd>
                </dl>
              ) : (
                <p className="muted">The key is made when the step runs; this run did not get that far.</p>
              )
            ) : (
              <p className="muted">This step changes nothing outside Onceflow, so it needs no key: running it again is harmless.</p>
            )}
          </Section>
        )}

        {step.claim && (
          <Section title="Claim on the key">
            <dl className="facts">
              <dt>State</dt>
              <dd data-testid="step-drawer.claim">{CLAIM_WORDS[step.claim.status] ?? step.claim.status}</dd>
              <dt>{step.claim.status === 'succeeded' ? 'Done by' : 'Held by'}</dt>
              <dd><RunLink id={step.claim.ownerRunId} current={run.id} numbers={context.numbers} /></dd>
              <dt>Taken over</dt>
              <dd>{step.claim.fence > 1 ? `${step.claim.fence - 1} time${step.claim.fence > 2 ? 's' : ''}: an earlier try was refused or stopped, and a later one carried on` : 'Never'}</dd>
              <dt>Last change</dt>
              <dd>{formatDateTime(step.claim.updatedAt)}</dd>
            </dl>
          </Section>
        )}

        {step.child && (
          <Section title="Child run">
            <p data-testid="step-drawer.child">
              <a href={`/runs/${step.child.runId}`} onClick={followLink(`/runs/${step.child!.runId}`)}>
                {step.child.flowName ?? 'Flow'} run #{step.child.seq}
              </a>
              {' '}— {RUN_STATUS_WORDS[step.child.status].toLowerCase()}. Its key claims this run, so a rerun or replay of this run waits for it instead of starting another.
            </p>
          </Section>
        )}

        {step.loop && (
          <Section title="Items">
            <LoopItems runId={run.id} loopId={step.nodeId} loop={step.loop} />
          </Section>
        )}

        {condition ? (
          // A condition's settings and output are its comparison: said in words, not as JSON.
          <Section title="Decision">
            <p data-testid="step-drawer.decision">{condition.sentence}</p>
            <p className="muted">The run went on through the “{EXIT_WORDS[condition.branch]}” exit; the steps after the other exit were skipped.</p>
          </Section>
        ) : (
          <>
            <Section title={trigger ? 'What arrived' : 'Input'}>
              <Json value={trigger ? triggerOf(run) : node ? renderedInput(node, run, steps) : null} empty="No settings." />
            </Section>
            {!trigger && (
              <Section title="Output">
                {step.outputTotal !== undefined && Array.isArray(step.output) && (
                  <p className="muted" data-testid="step-drawer.output-cut">
                    The first {step.output.length.toLocaleString('en')} of {step.outputTotal.toLocaleString('en')} results; each item&apos;s own are under Items.
                  </p>
                )}
                <Json value={step.output} empty={status === 'not_reached' ? 'None: the step did not run.' : 'None recorded.'} />
              </Section>
            )}
          </>
        )}

        {answer && (
          <Section title="Receiver's answer">
            {answer.summary && <p className="step-drawer__answer">{answer.summary}</p>}
            {answer.body !== undefined && <Json value={answer.body} empty="" />}
          </Section>
        )}

        {!trigger && (
          <Section title={`Tries (${step.attempts})`}>
            {step.lastError && status !== 'succeeded' && status !== 'duplicate' && <p className="error-note">{readableMessage(step.lastError)}</p>}
            <Attempts events={events} context={context} />
          </Section>
        )}
      </div>
    </aside>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="step-drawer__section">
      <h3>{title}</h3>
      {children}
    </section>
  );
}

function Json({ value, empty }: { value: unknown; empty: string }) {
  if (value === null || value === undefined) return <p className="muted">{empty}</p>;
  // Focusable, so a long value (a loop's list) can be scrolled from the keyboard.
  return <pre className="json" tabIndex={0}>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
}

function RunLink({ id, current, numbers }: { id: string; current: string; numbers: ReadonlyMap<string, number> }) {
  if (id === current) return <>this run</>;
  return (
    <a href={`/runs/${id}`} onClick={followLink(`/runs/${id}`)}>
      {runRef(id, numbers)}
    </a>
  );
}

/** The run attempts this step was part of, each with what happened in it. */
function Attempts({ events, context }: { events: readonly TimelineEntry[]; context: SentenceContext }) {
  const shown = events.filter((event) => event.type !== 'step.started');
  if (shown.length === 0) return <p className="muted">Nothing happened to this step yet.</p>;
  const byAttempt = new Map<number, TimelineEntry[]>();
  for (const event of shown) byAttempt.set(event.attempt, [...(byAttempt.get(event.attempt) ?? []), event]);
  return (
    <ol className="attempts">
      {[...byAttempt].map(([attempt, list]) => (
        <li key={attempt}>
          <span className="attempts__title">Attempt {attempt}</span>
          <ul>
            {list.map((event) => {
              const sentence = describeEvent(event, context);
              return (
                <li key={event.id} className={`attempts__event tone--${sentence.tone}`}>
                  <TimelineIcon name={sentence.icon} size={13} />
                  <span>
                    <strong>{sentence.title}</strong> <span className="muted">{formatTime(event.createdAt)}</span>
                    <br />
                    {sentence.parts.map((part, i) => (typeof part === 'string' ? part : <code key={i}>{part.code}</code>))}
                  </span>
                </li>
              );
            })}
          </ul>
        </li>
      ))}
    </ol>
  );
}

function statusSentence(step: StepInfo, status: StepStatus, run: RunInfo, events: readonly TimelineEntry[], context: SentenceContext): string {
  const latest = (type: string) => [...events].reverse().find((event) => event.type === type);
  switch (status) {
    case 'succeeded': {
      if (isTriggerKind(step.type)) return 'This is how the run began.';
      const outcome = step.type === 'condition' ? conditionOutcome(step.output) : null;
      if (outcome) return `${outcome.sentence}: the run went on through the “${EXIT_WORDS[outcome.branch]}” exit.`;
      if (context.decision?.(step.nodeId) === 'happened') return 'Recorded as done by your decision that it happened; it was not done again.';
      return step.sideEffect ? 'Done in this run. Its key is recorded, so the same work is never done twice.' : 'Done in this run.';
    }
    case 'duplicate': {
      const owner = step.claim?.ownerRunId;
      return `This work was already done${owner ? ` by ${owner === run.id ? 'this run' : runRef(owner, context.numbers)}` : ''}; its result was reused and nothing was done twice.`;
    }
    case 'skipped': {
      const skipped = latest('step.skipped');
      return skipped ? describeEvent(skipped, context).parts.map((part) => (typeof part === 'string' ? part : part.code)).join('') : 'It did not need to run.';
    }
    case 'uncertain':
      return 'It is not known whether this happened. Choose what happened above the flow.';
    case 'failed':
      return step.lastError ? readableMessage(step.lastError) : 'It did not work.';
    case 'waiting':
      return 'It is waiting for time to pass, or for another run doing the same work.';
    case 'running':
      return 'It is running now.';
    case 'not_reached':
      return 'The run did not get this far.';
  }
}

/** The part of an output (or a refusal) that is the receiver speaking: status and body, or a mail server's reply. */
function receiverAnswer(output: unknown, failure: unknown): { summary: string | null; body?: unknown } | null {
  const source = (output ?? failure) as Record<string, unknown> | null | undefined;
  if (!source || typeof source !== 'object') return null;
  if (typeof source.status === 'number') {
    return { summary: `HTTP ${source.status}${typeof source.contentType === 'string' ? ` · ${source.contentType}` : ''}`, body: source.body };
  }
  if (typeof source.response === 'string') {
    const accepted = Array.isArray(source.accepted) && source.accepted.length > 0 ? ` Accepted for ${source.accepted.join(', ')}.` : '';
    return { summary: `${source.response}.${accepted}`, ...(typeof source.messageId === 'string' ? { body: { messageId: source.messageId } } : {}) };
  }
  return null;
}
