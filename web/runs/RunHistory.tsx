/**
 * Every run, newest first, at /runs: filtered by status and flow, searchable by run id,
 * run number or webhook event id, and by what a run did (a key, a value in its input, the
 * step it failed at: core/run-search.ts), and live. The list asks for news every second and
 * keeps showing what it has meanwhile, so rows never blink or jump.
 */
import { RunBadges } from './RunBadges.tsx';
import '../editor/editor.css';
import './runs.css';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { describeRunSearch, parseRunSearch } from '../../core/run-search.ts';
import { useDebounced } from '../editor/useDebounced.ts';
import { navigate } from '../lib/router.ts';
import { trpc } from '../lib/trpc.ts';
import { CROWDED_TABLE_QUERY, useMediaQuery } from '../lib/useNarrowScreen.ts';
import { UndeliveredAlerts } from '../alerts/UndeliveredAlerts.tsx';
import { BulkRerun } from './BulkRerun.tsx';
import { EmptyRuns, type RunFilters } from './EmptyRuns.tsx';
import { KeepingLine } from './KeepingLine.tsx';
import { RecoverDialog, type RecoverChoices, type RecoverStatus } from './RecoverDialog.tsx';
import { RecentRecoveries } from '../operations/RecentRecoveries.tsx';
import { RunCards } from './RunCards.tsx';
import { formatDuration, formatWhen, RUN_STATUS_FILTERS, RUN_STATUS_WORDS, triggerWords } from './run-words.ts';
import type { RunListItem, RunStatus } from './run-types.ts';
import { useUrlState } from './useUrlState.ts';

const PAGE = 50;
// The server gives at most 500 runs per request.
const MAX_SHOWN = 500;
const FILTER_NAMES = ['status', 'flow', 'q', 'runs'] as const;

// Test runs stay out of history unless asked for.
const RUN_MODES = { live: 'Live runs', test: 'Test runs', all: 'Live and test runs' } as const;
type RunMode = keyof typeof RUN_MODES;

export function RunHistory() {
  const [filters, setFilter] = useUrlState(FILTER_NAMES);
  const [searchText, setSearchText] = useState(filters.q);
  const search = useDebounced(searchText.trim(), 300);
  const [limit, setLimit] = useState(PAGE);
  useEffect(() => setFilter('q', search), [search, setFilter]);

  const status = (RUN_STATUS_FILTERS as readonly string[]).includes(filters.status) ? (filters.status as RunStatus) : undefined;
  const flowId = filters.flow || undefined;
  const mode: RunMode = filters.runs === 'test' || filters.runs === 'all' ? filters.runs : 'live';
  // What narrows the list besides live or test runs; the empty list asks about test runs with the same.
  const narrowedBy: RunFilters = { ...(status ? { status } : {}), ...(flowId ? { flowId } : {}), ...(search ? { search } : {}) };
  const flows = useQuery(trpc.flows.list.queryOptions());
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ limit, mode, ...narrowedBy }),
    refetchInterval: 1000,
    placeholderData: keepPreviousData,
  });
  const flowName = flows.data?.find((flow) => flow.id === flowId)?.name;
  const filtered = Boolean(status || flowId || search || mode !== 'live');
  const list = runs.data?.runs ?? [];
  // A replay names the run it repeats; that run is usually on the same page.
  const numbers = new Map(list.map((run) => [run.id, run.seq]));
  const narrow = useMediaQuery(CROWDED_TABLE_QUERY);
  // One Recover… dialog for the page, opened by its button or by the bulk shortcut.
  const [recovering, setRecovering] = useState<RecoverChoices | null>(null);
  const recover = (statuses: RecoverStatus[]) => setRecovering({ statuses, ...(flowId ? { flowId } : {}) });

  return (
    <section className="list-page runs-page" aria-labelledby="runs-heading">
      <div className="page-head">
        <div>
          <h1 id="runs-heading">{flowName ? `Runs of “${flowName}”` : 'Runs'}</h1>
          <p className="page-sub">Every run, newest first. Duplicates stopped and steps skipped show what Onceflow kept from happening twice.</p>
        </div>
        <button type="button" className="button-secondary" onClick={() => recover(['failed'])}>Recover…</button>
      </div>
      <UndeliveredAlerts />
      <RecentRecoveries />
      {recovering && <RecoverDialog initial={recovering} onClose={() => setRecovering(null)} />}

      <div className="filters" role="search">
        <div className="filters__field filters__search">
          <label htmlFor="runs-search">Search runs</label>
          <input
            id="runs-search" type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)}
            placeholder="#12, key 4417:invoice, order.id = 4417" aria-describedby="runs-search-help" data-testid="runs.search"
          />
          <p id="runs-search-help" className="filters__help">
            A run number, run id or event id; <kbd>key 4417:invoice</kbd> for runs that used a key;{' '}
            <kbd>order.id = 4417</kbd> for a value in what started the run; <kbd>failed at Create invoice</kbd> for the step a run failed at.
          </p>
        </div>
        <label className="filters__field">
          <span>Status</span>
          <select value={status ?? ''} onChange={(event) => { setFilter('status', event.target.value); setLimit(PAGE); }}>
            <option value="">Any status</option>
            {RUN_STATUS_FILTERS.map((value) => (
              <option key={value} value={value}>{RUN_STATUS_WORDS[value]}</option>
            ))}
          </select>
        </label>
        <label className="filters__field">
          <span>Flow</span>
          <select value={flowId ?? ''} onChange={(event) => { setFilter('flow', event.target.value); setLimit(PAGE); }}>
            <option value="">All flows</option>
            {flows.data?.map((flow) => (
              <option key={flow.id} value={flow.id}>{flow.name}</option>
            ))}
          </select>
        </label>
        <label className="filters__field">
          <span>Show</span>
          <select value={mode} onChange={(event) => { setFilter('runs', event.target.value === 'live' ? '' : event.target.value); setLimit(PAGE); }} data-testid="runs.mode">
            {(Object.keys(RUN_MODES) as RunMode[]).map((value) => (
              <option key={value} value={value}>{RUN_MODES[value]}</option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" className="link-button" onClick={() => { setSearchText(''); setFilter('status', ''); setFilter('flow', ''); setFilter('q', ''); setFilter('runs', ''); }}>
            Clear filters
          </button>
        )}
      </div>

      {(status === 'failed' || status === 'needs_review') && !search && mode === 'live' && (
        <BulkRerun status={status} shown={list.length} {...(flowName ? { flowName } : {})} onRecover={(bulk) => recover([bulk])} />
      )}

      <p className="search-reading" aria-live="polite" data-testid="runs.search-reading">{search ? `${describeRunSearch(parseRunSearch(search))}.` : ''}</p>

      {runs.error && <p role="alert" className="error">The runs could not be loaded: {runs.error.message}</p>}
      {runs.isPending && <p className="muted">Loading runs…</p>}
      {runs.data && list.length === 0 && (
        <EmptyRuns
          filters={narrowedBy} liveOnly={mode === 'live'} onShowTests={() => { setFilter('runs', 'test'); setLimit(PAGE); }}
        />
      )}
      {list.length > 0 && narrow && <RunCards runs={list} numbers={numbers} busy={runs.isPlaceholderData} />}
      {list.length > 0 && !narrow && (
        <table className="run-table" aria-label="Runs" aria-busy={runs.isPlaceholderData}>
          <colgroup>
            <col className="col-run" /><col className="col-flow" /><col className="col-status" /><col className="col-trigger" />
            <col className="col-time" /><col className="col-duration" /><col className="col-count" /><col className="col-count" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Flow</th>
              <th scope="col">Status</th>
              <th scope="col">Trigger</th>
              <th scope="col">Started</th>
              <th scope="col" title="How long the latest attempt took, without the wait before a rerun">Duration</th>
              <th scope="col" className="num" title="Side effects that were already done and were not done again">Duplicates stopped</th>
              <th scope="col" className="num" title="Steps that did not need to run again">Skipped</th>
            </tr>
          </thead>
          <tbody>
            {list.map((run) => <RunRow key={run.id} run={run} numbers={numbers} />)}
          </tbody>
        </table>
      )}
      {runs.data?.nextCursor !== null && runs.data !== undefined && limit < MAX_SHOWN && (
        <button type="button" className="button-secondary show-more" onClick={() => setLimit((current) => Math.min(current + PAGE, MAX_SHOWN))}>
          Show older runs
        </button>
      )}
      <KeepingLine />
    </section>
  );
}

function RunRow({ run, numbers }: { run: RunListItem; numbers: ReadonlyMap<string, number> }) {
  const trigger = triggerWords(run, numbers);
  const href = `/runs/${run.id}`;
  const open = () => navigate(href);
  return (
    <tr data-testid="runs.row" data-run-id={run.id} className="run-table__row" onClick={(event) => { if (!(event.target as HTMLElement).closest('a, button')) open(); }}>
      <td>
        <a href={href} onClick={(event) => { event.preventDefault(); open(); }} className="run-table__link">#{run.seq}</a>
      </td>
      <td>
        <span className="run-table__flow">
          <span className="run-table__flow-name">{run.flowName ?? '—'}</span>
          <RunBadges run={run} />
        </span>
      </td>
      <td>
        <span className={`status-pill status--${run.status}`} data-status={run.status}>{RUN_STATUS_WORDS[run.status]}</span>
      </td>
      <td className="run-table__trigger" title={trigger}>{trigger}</td>
      <td>{formatWhen(run.startedAt ?? run.createdAt)}</td>
      <td>{formatDuration(run.durationMs)}</td>
      <td className={`num${run.duplicates ? ' is-dedupe' : ''}`}>{run.duplicates || '—'}</td>
      <td className={`num${run.skipped ? ' is-skip' : ''}`}>{run.skipped || '—'}</td>
    </tr>
  );
}
