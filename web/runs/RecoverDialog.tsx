/**
 * "Recover…": choose which runs (a flow or all, a time window on when they were created,
 * statuses, trigger kinds) and what to do (rerun or replay, on the latest or the original
 * version), see one summed preview, start. Then the dialog follows the operation with a
 * progress bar and a Cancel, and links to its report.
 */
import '../operations/operations.css';
import { useMutation, useQuery, keepPreviousData } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { counted, previewSentence } from '../../core/recovery-words.ts';
import { useDebounced } from '../editor/useDebounced.ts';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { Dialog } from './Dialog.tsx';
import { CountsLine } from './PreviewSummary.tsx';
import { plural } from './run-words.ts';

export type RecoverStatus = 'failed' | 'needs_review' | 'cancelled' | 'succeeded';
type TriggerKind = 'manual' | 'webhook' | 'schedule';

const STATUSES: { value: RecoverStatus; label: string }[] = [
  { value: 'failed', label: 'Failed' }, { value: 'needs_review', label: 'Needs review' }, { value: 'cancelled', label: 'Cancelled' }, { value: 'succeeded', label: 'Succeeded' },
];
const TRIGGERS: { value: TriggerKind; label: string }[] = [{ value: 'manual', label: 'Manual' }, { value: 'webhook', label: 'Webhook' }, { value: 'schedule', label: 'Schedule' }];

export interface RecoverChoices {
  flowId?: string;
  statuses: RecoverStatus[];
}

/** A datetime-local value (the browser's local time) as ms, or undefined when empty or unreadable. */
function timeOf(value: string): number | undefined {
  if (!value) return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : time;
}

export function RecoverDialog({ initial, onClose }: { initial: RecoverChoices; onClose(): void }) {
  const flows = useQuery(trpc.flows.list.queryOptions());
  const [name, setName] = useState('');
  const [flowId, setFlowId] = useState(initial.flowId ?? '');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [statuses, setStatuses] = useState<RecoverStatus[]>(initial.statuses);
  const [triggers, setTriggers] = useState<TriggerKind[]>(['manual', 'webhook', 'schedule']);
  const [mode, setMode] = useState<'rerun' | 'replay'>('rerun');
  const [version, setVersion] = useState<'latest' | 'original'>('latest');
  // Work already done happening again (a changed or expired key) needs a second click.
  const [confirming, setConfirming] = useState(false);
  const [operationId, setOperationId] = useState<string | null>(null);
  const ids = useId();

  const fromTime = timeOf(from);
  const toTime = timeOf(to);
  const choices = {
    ...(flowId ? { flowId } : {}), ...(fromTime !== undefined ? { from: fromTime } : {}), ...(toTime !== undefined ? { to: toTime } : {}),
    statuses, triggerKinds: triggers, mode, version,
  };
  // Debounced as text: a new object every render would never settle.
  const asked = JSON.parse(useDebounced(JSON.stringify(choices), 250)) as typeof choices;
  const ready = asked.statuses.length > 0 && asked.triggerKinds.length > 0;
  const preview = useQuery({ ...trpc.operations.preview.queryOptions(asked), enabled: ready && operationId === null, placeholderData: keepPreviousData, staleTime: 0, gcTime: 0 });
  const start = useMutation(trpc.operations.recover.mutationOptions({ onSuccess: (operation) => setOperationId(operation.id) }));
  const change = <T,>(set: (value: T) => void) => (value: T) => { set(value); setConfirming(false); };
  const toggle = <T,>(list: T[], value: T, set: (next: T[]) => void) => change(set)(list.includes(value) ? list.filter((item) => item !== value) : [...list, value]);

  if (operationId) return <RecoveryProgress operationId={operationId} onClose={onClose} />;

  const data = preview.data;
  const runs = data?.runs ?? 0;
  const needsConfirm = (data?.warnings ?? 0) > 0 || (data?.expired ?? 0) > 0;
  const verb = mode === 'rerun' ? 'Rerun' : 'Replay';
  return (
    <Dialog
      title="Recover runs"
      onClose={onClose}
      testId="recover.dialog"
      footer={
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Cancel</button>
          <button
            type="button"
            className={confirming ? 'button-confirm' : 'button-primary'}
            disabled={!ready || !data || preview.isPlaceholderData || runs === 0 || data.tooMany || start.isPending}
            onClick={() => (needsConfirm && !confirming ? setConfirming(true) : start.mutate({ ...choices, ...(name.trim() ? { name: name.trim() } : {}) }))}
          >
            {start.isPending ? 'Starting…' : confirming ? 'Yes, act again' : `${verb} ${plural(runs, 'run')}`}
          </button>
        </>
      }
    >
      <p className="dialog__intro">Everything that went wrong in a time window, fixed in one go. You see what will happen before anything starts.</p>
      <div className="recover-form">
        <label className="recover-field recover-field--wide">
          <span>Name</span>
          <input type="text" value={name} maxLength={200} onChange={(event) => setName(event.target.value)} placeholder="For example: Mail server outage 30 Nov" />
        </label>
        <label className="recover-field recover-field--wide">
          <span>Flow</span>
          <select value={flowId} onChange={(event) => change(setFlowId)(event.target.value)}>
            <option value="">All flows</option>
            {flows.data?.map((flow) => <option key={flow.id} value={flow.id}>{flow.name}</option>)}
          </select>
        </label>
        <label className="recover-field">
          <span>Runs created from</span>
          <input type="datetime-local" value={from} onChange={(event) => change(setFrom)(event.target.value)} aria-describedby={`${ids}-window`} />
        </label>
        <label className="recover-field">
          <span>to</span>
          <input type="datetime-local" value={to} onChange={(event) => change(setTo)(event.target.value)} aria-describedby={`${ids}-window`} />
        </label>
        <p id={`${ids}-window`} className="muted recover-field--wide recover-hint">Empty means from the first run, or up to now. Times are your computer’s.</p>
        <fieldset className="recover-choices recover-field--wide">
          <legend>Runs that</legend>
          {STATUSES.map((status) => (
            <label key={status.value} className="recover-check">
              <input type="checkbox" checked={statuses.includes(status.value)} onChange={() => toggle(statuses, status.value, setStatuses)} />
              <span>{status.label}</span>
            </label>
          ))}
        </fieldset>
        <fieldset className="recover-choices recover-field--wide">
          <legend>Started by</legend>
          {TRIGGERS.map((trigger) => (
            <label key={trigger.value} className="recover-check">
              <input type="checkbox" checked={triggers.includes(trigger.value)} onChange={() => toggle(triggers, trigger.value, setTriggers)} />
              <span>{trigger.label}</span>
            </label>
          ))}
        </fieldset>
        <fieldset className="recover-choices recover-field--wide">
          <legend>What to do</legend>
          <label className="recover-check">
            <input type="radio" name={`${ids}-mode`} checked={mode === 'rerun'} onChange={() => change(setMode)('rerun')} />
            <span>Rerun: each run continues as a new attempt</span>
          </label>
          <label className="recover-check">
            <input type="radio" name={`${ids}-mode`} checked={mode === 'replay'} onChange={() => change(setMode)('replay')} />
            <span>Replay: a new run with the same input</span>
          </label>
        </fieldset>
        <fieldset className="recover-choices recover-field--wide version-picker" data-testid="version.picker">
          <legend>On which version?</legend>
          {data && data.onOlderVersion > 0 && <p className="muted">{plural(data.onOlderVersion, 'run')} ran on an older version than the latest published.</p>}
          <label className="recover-check">
            <input type="radio" name={`${ids}-version`} checked={version === 'latest'} onChange={() => change(setVersion)('latest')} />
            <span>The latest version of the flow</span>
          </label>
          <label className="recover-check">
            <input type="radio" name={`${ids}-version`} checked={version === 'original'} onChange={() => change(setVersion)('original')} />
            <span>The version each run ran</span>
          </label>
        </fieldset>
      </div>

      <section className="recover-preview" aria-live="polite" aria-busy={preview.isFetching} data-testid="recover.preview">
        <h3>What will happen</h3>
        {!ready && <p>Choose at least one status and one kind of trigger.</p>}
        {ready && preview.isPending && <p className="muted">Working out what each run will do…</p>}
        {preview.error && <p role="alert" className="error">The preview could not be made: {preview.error.message}</p>}
        {data && data.runs > 0 && (
          <p className="dialog__intro">
            {mode === 'rerun' ? `Each of the ${plural(data.runs, 'run')} continues as a new attempt.` : `Each of the ${plural(data.runs, 'run')} is run again as a new run with the same input.`} Added up over all of them:
          </p>
        )}
        {data && <p className="recover-sentence" data-testid="recover.sentence">{previewSentence(data)}.</p>}
        {data && data.runs > 0 && <CountsLine counts={data.counts} />}
        {data?.tooMany && <p role="alert" className="error">More than 50,000 runs match: choose a shorter time window or one flow.</p>}
        {data && data.unavailable > 0 && <p className="muted">{plural(data.unavailable, 'run')} will be left alone: the version {data.unavailable === 1 ? 'it' : 'they'} ran no longer exists.</p>}
        {data && data.warnings > 0 && (
          <p className="rerun-warning" role={confirming ? 'alert' : undefined}>
            {plural(data.warnings, 'step')} that already acted will act again, because {data.warnings === 1 ? 'its key' : 'their keys'} changed in the latest version.{confirming ? ' Click “Yes, act again” if that is what you want.' : ''}
          </p>
        )}
        {data && data.expired > 0 && (
          <div className="rerun-warning" role={confirming ? 'alert' : undefined}>
            <p>{counted(data.expired, 'key')} expired, so nothing stops {data.expired === 1 ? 'its step' : 'their steps'} acting again:</p>
            <ul className="recover-keys">
              {data.expiredKeys.slice(0, 5).map((key) => <li key={`${key.runId}:${key.nodeId}`}><code>{key.key}</code> ({key.label}, run #{key.seq})</li>)}
              {data.expired > 5 && <li>and {counted(data.expired - 5, 'more key')}</li>}
            </ul>
          </div>
        )}
        {start.error && <p role="alert" className="error">{start.error.message}</p>}
      </section>
    </Dialog>
  );
}

/** The started operation: a live progress bar, a Cancel that stops between batches, and the report. */
function RecoveryProgress({ operationId, onClose }: { operationId: string; onClose(): void }) {
  const operation = useQuery({
    ...trpc.operations.get.queryOptions({ operationId }),
    refetchInterval: (query) => (query.state.data?.status === 'running' || !query.state.data ? 500 : false),
  });
  const cancel = useMutation(trpc.operations.cancel.mutationOptions({ onSuccess: () => void operation.refetch() }));
  const data = operation.data;
  const report = `/operations/${operationId}`;
  return (
    <Dialog
      title={data ? `Recovering: ${data.name}` : 'Recovering'}
      onClose={onClose}
      testId="recover.dialog"
      footer={
        <>
          {data?.status === 'running' && (
            <button type="button" className="button-secondary" disabled={cancel.isPending} onClick={() => cancel.mutate({ operationId })}>
              {cancel.isPending ? 'Cancelling…' : 'Cancel the recovery'}
            </button>
          )}
          <a className="button-primary" href={report} onClick={(event) => { event.preventDefault(); onClose(); navigate(report); }}>Open the report</a>
        </>
      }
    >
      {data && <OperationProgress operation={data} />}
      {cancel.error && <p role="alert" className="error">{cancel.error.message}</p>}
    </Dialog>
  );
}

export function OperationProgress({ operation }: { operation: { status: string; done: number; total: number; error: string | null } }) {
  const words: Record<string, string> = {
    running: `${operation.done.toLocaleString('en-US')} of ${counted(operation.total, 'run')} started again…`,
    finished: `Done: all ${counted(operation.total, 'run')} handled. They run now like any other run.`,
    cancelled: `Cancelled after ${counted(operation.done, 'run')} of ${operation.total.toLocaleString('en-US')}. The rest were not touched.`,
    failed: `Stopped after ${counted(operation.done, 'run')}: ${operation.error ?? 'an error'}`,
  };
  return (
    <div className="recover-progress" data-testid="recover.progress" data-status={operation.status}>
      <progress max={Math.max(operation.total, 1)} value={operation.done} aria-label="Runs handled" />
      <p role="status">{words[operation.status] ?? operation.status}</p>
    </div>
  );
}
