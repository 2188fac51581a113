/**
 * The run's timeline: every event in order, one fixed-height row each, with only the rows
 * in view (and an overscan) in the page. Rows of a step open that step's details. While
 * the newest event is in view, new events keep it in view; when a new attempt begins
 * (a rerun, a decision) the timeline follows it and takes the focus.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { formatTime, plural } from './run-words.ts';
import type { TimelineEntry } from './run-types.ts';
import { describeEvent, eventGroup, sentenceText, type Part, type SentenceContext } from './timeline-sentences.ts';
import { TimelineIcon } from './TimelineIcon.tsx';
import { scrollToReveal, virtualWindow } from './virtual-window.ts';

// Must match .timeline-row's height in runs.css.
export const ROW_HEIGHT = 76;
const OVERSCAN = 8;

type Filter = 'all' | 'prevented' | 'problem';
const FILTERS: ReadonlyArray<{ value: Filter; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'prevented', label: 'Duplicates & skips' },
  { value: 'problem', label: 'Problems' },
];

interface TimelineProps {
  events: readonly TimelineEntry[];
  context: SentenceContext;
  loading: boolean;
  /** The run's current attempt; when it grows, the new attempt's events are followed. */
  attempt?: number | undefined;
  selectedNodeId: string | null;
  onSelectStep(nodeId: string): void;
}

export function Timeline({ events, context, loading, attempt, selectedNodeId, onSelectStep }: TimelineProps) {
  const [filter, setFilter] = useState<Filter>('all');
  const shown = useMemo(() => (filter === 'all' ? events : events.filter((event) => eventGroup(event.type) === filter)), [events, filter]);
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const following = useRef(false);

  useLayoutEffect(() => {
    const element = viewport.current;
    if (!element) return;
    setHeight(element.clientHeight);
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // New events arrive at the end: stay with them if the end was in view.
  useLayoutEffect(() => {
    const element = viewport.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [shown.length]);

  // A new attempt began while the page was open: go to its events and stay with them, so
  // the person who clicked Rerun sees the new attempt, not the top of the old one.
  const seenAttempt = useRef(attempt);
  useEffect(() => {
    const before = seenAttempt.current;
    seenAttempt.current = attempt;
    const element = viewport.current;
    if (!element || before === undefined || attempt === undefined || attempt <= before) return;
    following.current = true;
    setFilter('all');
    element.scrollTop = element.scrollHeight;
    // The button that began it (Rerun, a decision) is gone with the old status, leaving the
    // focus nowhere; the timeline takes it. Someone busy elsewhere on the page keeps theirs.
    const focus = document.activeElement;
    if (focus === null || focus === document.body) {
      element.scrollIntoView({ block: 'nearest' });
      element.focus({ preventScroll: true });
    }
  }, [attempt]);

  // Choosing a step brings its latest event into view.
  useEffect(() => {
    const element = viewport.current;
    if (!element || !selectedNodeId) return;
    let index = -1;
    for (let i = shown.length - 1; i >= 0; i--) {
      if (shown[i]!.nodeId === selectedNodeId) {
        index = i;
        break;
      }
    }
    if (index >= 0) element.scrollTop = scrollToReveal(index, ROW_HEIGHT, element.scrollTop, element.clientHeight);
    // Only when the choice changes, not on every new event.
  }, [selectedNodeId]);

  const onScroll = () => {
    const element = viewport.current;
    if (!element) return;
    setScrollTop(element.scrollTop);
    following.current = element.scrollTop + element.clientHeight >= element.scrollHeight - ROW_HEIGHT / 2;
  };

  const jump = (to: 'start' | 'end') => {
    const element = viewport.current;
    if (!element) return;
    element.scrollTop = to === 'start' ? 0 : element.scrollHeight;
    following.current = to === 'end';
  };

  const range = virtualWindow(shown.length, ROW_HEIGHT, scrollTop, height, OVERSCAN);
  const rows: ReactNode[] = [];
  for (let index = range.start; index < range.end; index++) {
    const event = shown[index]!;
    rows.push(
      <TimelineRow
        key={event.id ?? index}
        event={event}
        index={index}
        total={shown.length}
        context={context}
        related={selectedNodeId !== null && event.nodeId === selectedNodeId}
        onSelectStep={onSelectStep}
      />,
    );
  }

  return (
    <section className="timeline" aria-labelledby="timeline-heading">
      <div className="timeline__head">
        <h2 id="timeline-heading">
          Timeline <span className="timeline__count" data-testid="timeline.count">{plural(events.length, 'event')}</span>
        </h2>
        <div className="segmented" role="group" aria-label="Show">
          {FILTERS.map((option) => (
            <button key={option.value} type="button" aria-pressed={filter === option.value} onClick={() => setFilter(option.value)}>
              {option.label}
            </button>
          ))}
        </div>
      </div>
      <div className="timeline__viewport" ref={viewport} onScroll={onScroll} tabIndex={0} role="group" aria-label="Timeline, scrollable">
        <div role="list" aria-label="Timeline" aria-busy={loading} className="timeline__list" style={{ height: range.totalHeight }}>
          {rows}
        </div>
        {shown.length === 0 && !loading && <p className="timeline__empty">{filter === 'all' ? 'Nothing has happened yet.' : 'No events of this kind in this run.'}</p>}
        {shown.length === 0 && loading && <p className="timeline__empty">Loading the timeline…</p>}
      </div>
      {shown.length * ROW_HEIGHT > height * 2 && (
        <div className="timeline__jump">
          <button type="button" className="link-button" onClick={() => jump('start')}>First event</button>
          <button type="button" className="link-button" onClick={() => jump('end')}>Latest event</button>
        </div>
      )}
    </section>
  );
}

interface RowProps {
  event: TimelineEntry;
  index: number;
  total: number;
  context: SentenceContext;
  related: boolean;
  onSelectStep(nodeId: string): void;
}

function TimelineRow({ event, index, total, context, related, onSelectStep }: RowProps) {
  const sentence = describeEvent(event, context);
  const step = event.nodeId ? context.step(event.nodeId) : undefined;
  const body = (
    <>
      <span className="timeline-row__icon" aria-hidden="true">
        <TimelineIcon name={sentence.icon} />
      </span>
      <span className="timeline-row__body">
        <span className="timeline-row__head">
          <strong className="timeline-row__title">{sentence.title}</strong>
          {step && <span className="timeline-row__step">{step.label}</span>}
          <time className="timeline-row__time" dateTime={new Date(event.createdAt).toISOString()}>{formatTime(event.createdAt)}</time>
        </span>
        <span className="timeline-row__text">
          {sentence.parts.map((part, i) => renderPart(part, i))}
        </span>
      </span>
    </>
  );
  return (
    <div
      role="listitem"
      aria-posinset={index + 1}
      aria-setsize={total}
      className={`timeline-row timeline-row--${sentence.tone}${related ? ' is-related' : ''}`}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
      data-testid="timeline.entry"
      data-type={event.type}
      title={sentenceText(sentence)}
    >
      {step && event.nodeId ? (
        <button type="button" className="timeline-row__button" onClick={() => onSelectStep(event.nodeId!)}>
          {body}
        </button>
      ) : (
        <div className="timeline-row__button">{body}</div>
      )}
    </div>
  );
}

function renderPart(part: Part, index: number): ReactNode {
  return typeof part === 'string' ? part : <code key={index}>{part.code}</code>;
}
