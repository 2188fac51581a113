/**
 * One run at /runs/<runId>: what started it and how it went, the flow coloured by each
 * step's status, the timeline, a step's details, and what a person can do next (rerun,
 * replay, decide an unknown outcome).
 */
import { UndeliveredAlerts } from '../alerts/UndeliveredAlerts.tsx';
import { RunBadges } from './RunBadges.tsx';
import './runs.css';
import { skipToken, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { isTriggerKind } from '../editor/node-kinds.ts';
import { attemptSpans, type AttemptSpan } from '../../core/attempt-spans.ts';
import { mergeByTime } from '../../core/timeline-merge.ts';
import { followLink } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { CancelRun } from './CancelRun.tsx';
import { RerunDialog } from './RerunDialog.tsx';
import { ReplayButtons } from './ReplayButtons.tsx';
import { ReviewPanel } from './ReviewPanel.tsx';
import { RunCanvas } from './RunCanvas.tsx';
import { canRerun, formatDateTime, formatDuration, plural, readableMessage, RUN_STATUS_WORDS, triggerWords } from './run-words.ts';
import type { RunDetail, StepStatus, TimelineEntry } from './run-types.ts';
import { StepDrawer } from './StepDrawer.tsx';
import { Timeline } from './Timeline.tsx';
import type { SentenceContext } from './timeline-sentences.ts';
import { useRunNumbers } from './useRunNumbers.ts';
import { useTimeline } from './useTimeline.ts';

export function RunView({ runId }: { runId: string }) {
  // The run's details change only when its timeline grows or its status moves, which the timeline watches.
  const detail = useQuery({ ...trpc.runs.get.queryOptions({ runId }), staleTime: Infinity });
  const timeline = useTimeline(runId, detail.data?.run.status);
  // Repeated deliveries come with the run, not as stored events: shown in the timeline by time.
  const repeats = detail.data?.repeats;
  const events = useMemo(() => (repeats ? mergeByTime(timeline.events, repeats) : timeline.events), [timeline.events, repeats]);

  if (detail.error) {
    return (
      <div className="run-message" role="alert">
        <h1>This run could not be opened</h1>
        <p>{detail.error.message}</p>
        <BackToRuns />
      </div>
    );
  }
  // The timeline shows as soon as its first page arrives, even before the run's details.
  return <RunLayout runId={runId} data={detail.data} events={events} timelineLoading={timeline.isPending} />;
}

const NO_STEPS: RunDetail['steps'] = [];

interface LayoutProps {
  runId: string;
  data: RunDetail | undefined;
  events: readonly TimelineEntry[];
  timelineLoading: boolean;
}

function RunLayout({ runId, data, events, timelineLoading }: LayoutProps) {
  const run = data?.run;
  const steps = data?.steps ?? NO_STEPS;
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [rerunOpen, setRerunOpen] = useState(false);
  const version = useQuery({
    ...trpc.flows.versionDocument.queryOptions(run ? { versionId: run.versionId } : skipToken),
    staleTime: Infinity,
  });

  const referenced = useMemo(() => {
    const ids: string[] = [];
    if (run?.replayOf) ids.push(run.replayOf);
    for (const step of steps) if (step.claim && step.claim.ownerRunId !== runId) ids.push(step.claim.ownerRunId);
    for (const event of events) {
      const other = event.data?.runId ?? event.data?.previousRunId ?? event.data?.replayOf;
      if (typeof other === 'string' && other !== runId) ids.push(other);
    }
    return ids;
  }, [run?.replayOf, steps, events, runId]);
  const numbers = useRunNumbers(referenced);

  const byNode = useMemo(() => new Map(steps.map((step) => [step.nodeId, step])), [steps]);
  const decisions = useMemo(() => {
    const map = new Map<string, string>();
    for (const event of events) if (event.type === 'step.resolved' && event.nodeId && typeof event.data?.decision === 'string') map.set(event.nodeId, event.data.decision);
    return map;
  }, [events]);
  const context = useMemo<SentenceContext>(
    () => ({ runId, step: (nodeId) => byNode.get(nodeId), numbers, decision: (nodeId) => decisions.get(nodeId) }),
    [runId, byNode, numbers, decisions],
  );
  const spans = useMemo(() => (run ? attemptSpans(events, run) : []), [events, run]);
  const statuses = useMemo(() => {
    const map = new Map<string, StepStatus>();
    // The trigger has no step of its own: it succeeded as soon as the run began.
    for (const step of steps) map.set(step.nodeId, isTriggerKind(step.type) ? (run?.status === 'queued' && !run.startedAt ? 'waiting' : 'succeeded') : step.status);
    return map;
  }, [steps, run?.status, run?.startedAt]);

  const counts = useMemo(() => {
    let duplicates = 0;
    let skipped = 0;
    let repeats = 0;
    for (const event of events) {
      if (event.type === 'step.duplicate') duplicates++;
      else if (event.type === 'step.skipped') skipped++;
      // Repeats past the listed ones are counted on the last (inbound-repeats.ts).
      else if (event.type === 'webhook.duplicate') repeats += 1 + (typeof event.data?.notListed === 'number' ? event.data.notListed : 0);
    }
    return { duplicates, skipped, repeats };
  }, [events]);

  const selected = selectedId ? byNode.get(selectedId) : undefined;
  const selectedEvents = useMemo(() => (selectedId ? events.filter((event) => event.nodeId === selectedId) : []), [events, selectedId]);
  const uncertain = run?.status === 'needs_review' ? steps.filter((step) => step.status === 'uncertain') : [];

  return (
    <div className="run-view">
      {data ? (
        <RunHeader data={data} counts={counts} numbers={numbers} spans={spans} onRerun={() => setRerunOpen(true)} />
      ) : (
        <header className="run-head">
          <div className="run-head__main">
            <BackToRuns />
            <div className="run-head__title"><h1>Run</h1></div>
            <p className="run-head__meta">Opening the run…</p>
          </div>
        </header>
      )}
      <UndeliveredAlerts runId={runId} />
      {uncertain.map((step) => (
        <ReviewPanel key={step.nodeId} runId={runId} step={step} events={events.filter((event) => event.nodeId === step.nodeId)} />
      ))}
      <div className={selected && run ? 'run-body has-drawer' : 'run-body'}>
        <div className="run-body__canvas">
          {version.data ? (
            <RunCanvas document={version.data} steps={steps} statuses={statuses} selectedId={selectedId} onSelect={setSelectedId} />
          ) : (
            <p className="run-message">{version.error ? `The flow version of this run could not be loaded: ${version.error.message}` : 'Drawing the flow…'}</p>
          )}
        </div>
        {selected && run && (
          <StepDrawer
            key={selected.nodeId}
            step={selected}
            status={statuses.get(selected.nodeId) ?? selected.status}
            node={version.data?.nodes.find((node) => node.id === selected.nodeId)}
            run={run}
            steps={steps}
            events={selectedEvents}
            context={context}
            onClose={() => setSelectedId(null)}
          />
        )}
        <Timeline events={events} context={context} loading={timelineLoading} attempt={run?.attempt} selectedNodeId={selectedId} onSelectStep={setSelectedId} />
      </div>
      {rerunOpen && run && <RerunDialog runId={run.id} seq={run.seq} onClose={() => setRerunOpen(false)} />}
    </div>
  );
}

interface HeaderProps {
  data: RunDetail;
  counts: { duplicates: number; skipped: number; repeats: number };
  numbers: ReadonlyMap<string, number>;
  spans: readonly AttemptSpan[];
  onRerun(): void;
}

function RunHeader({ data: { run, steps }, counts, numbers, spans, onRerun }: HeaderProps) {
  const [replayError, setReplayError] = useState<string | null>(null);
  const flowLink = `/flows/${run.flowId}`;

  return (
    <header className="run-head">
      <div className="run-head__main">
        <BackToRuns />
        <div className="run-head__title">
          <h1>Run #{run.seq}</h1>
          <span className={`status-pill status--${run.status}`} data-testid="run.status" data-status={run.status}>
            {RUN_STATUS_WORDS[run.status]}
          </span>
          <a className="run-head__flow" href={flowLink} onClick={followLink(flowLink)}>
            {run.flowName ?? 'Flow'}
          </a>
          <RunBadges run={run} />
        </div>
        <p className="run-head__meta">
          <span>{triggerWords(run, numbers)}</span>
          <span>{run.startedAt ? `Started ${formatDateTime(run.startedAt)}` : `Queued ${formatDateTime(run.createdAt)}`}</span>
          <AttemptDurations spans={spans} />
          <span className={counts.duplicates ? 'run-head__stat is-dedupe' : 'run-head__stat'}>{plural(counts.duplicates, 'duplicate')} stopped</span>
          <span className="run-head__stat">{plural(counts.skipped, 'step')} skipped</span>
          {counts.repeats > 0 && <span className="run-head__stat is-dedupe">{plural(counts.repeats, 'repeated delivery', 'repeated deliveries')} ignored</span>}
        </p>
        {run.parent && (
          <p className="run-head__meta" data-testid="run.parent">
            <span>
              Started by{' '}
              <a href={`/runs/${run.parent.runId}`} onClick={followLink(`/runs/${run.parent!.runId}`)}>
                {run.parent.flowName ?? 'Flow'} run #{run.parent.seq}
              </a>
              , step “{run.parent.stepLabel}”
            </span>
          </p>
        )}
        {run.status === 'failed' && run.error && <p className="run-head__error">{readableMessage(run.error)}</p>}
        {replayError && <p role="alert" className="error">{replayError}</p>}
      </div>
      <div className="run-head__actions">
        {run.triggerKind === 'webhook' && (
          <a className="button-link" href={`/flows/${run.flowId}/inbox`} onClick={followLink(`/flows/${run.flowId}/inbox`)}>
            Inbox
          </a>
        )}
        <ReplayButtons run={run} onError={setReplayError} />
        <CancelRun run={run} startsChildren={steps.some((step) => step.type === 'flow.run')} />
        {canRerun(run.status) && (
          <button type="button" className="button-primary" onClick={onRerun} title="Continues this run as a new attempt; you see what each step will do first.">
            Rerun
          </button>
        )}
      </div>
    </header>
  );
}

/**
 * How long the run took: one figure for one attempt, and each attempt's own figure after a
 * rerun, so the time the run sat failed before someone reran it is never counted.
 */
function AttemptDurations({ spans }: { spans: readonly AttemptSpan[] }) {
  if (spans.length === 0) return null;
  const took = (span: AttemptSpan) => (span.finishedAt === null ? 'running now' : `took ${formatDuration(span.finishedAt - span.startedAt)}`);
  if (spans.length === 1) {
    const only = spans[0]!;
    return only.finishedAt === null ? null : <span data-testid="run.durations">Took {formatDuration(only.finishedAt - only.startedAt)}</span>;
  }
  return (
    <span data-testid="run.durations">
      {spans.map((span, index) => `${index === 0 ? 'Attempt' : 'attempt'} ${span.attempt} ${took(span)}`).join(', ')}
    </span>
  );
}

function BackToRuns() {
  return (
    <a className="back-link" href="/runs" onClick={followLink('/runs')}>
      ← Runs
    </a>
  );
}
