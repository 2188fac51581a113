/**
 * The editor's Test run: the draft, with the sample input, against the built-in
 * stand-ins, under keys that never meet a live run's. "Test against the real services…"
 * first names every service the test would reach, and asks.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '../runs/Dialog.tsx';
import { trpc } from '../lib/trpc.ts';
import type { Busy } from './useFlowActions.ts';

interface TestRunButtonsProps {
  flowId: string;
  busy: Busy;
  onRun(realServices: boolean): void;
}

export function TestRunButtons({ flowId, busy, onRun }: TestRunButtonsProps) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      {/* Together on whichever row of the toolbar they land. */}
      <div className="button-pair">
        <button
          type="button"
          className="button-primary"
          onClick={() => onRun(false)}
          disabled={busy !== null}
          title="Runs the draft with the sample input against the built-in stand-ins: nothing real is touched and no live key is used"
          data-testid="editor.test-run"
        >
          {busy === 'run' ? 'Starting…' : <><span aria-hidden="true">▶</span> Test run</>}
        </button>
        <button type="button" className="button-secondary" onClick={() => setAsking(true)} disabled={busy !== null} data-testid="editor.test-real">
          Real services…
        </button>
      </div>
      {asking && (
        <RealServicesDialog
          flowId={flowId}
          onClose={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            onRun(true);
          }}
        />
      )}
    </>
  );
}

function RealServicesDialog({ flowId, onClose, onConfirm }: { flowId: string; onClose(): void; onConfirm(): void }) {
  const services = useQuery(trpc.tests.realServices.queryOptions({ flowId }));
  const list = services.data ?? [];
  return (
    <Dialog
      title="Test against the real services?"
      onClose={onClose}
      testId="editor.real-services"
      footer={(
        <>
          <button type="button" className="button-secondary" onClick={onClose}>Keep the stand-ins</button>
          <button type="button" className="button-danger" onClick={onConfirm} disabled={services.isPending}>
            {list.length === 0 ? 'Run the test' : `Send to ${list.length === 1 ? 'this service' : `these ${list.length} services`}`}
          </button>
        </>
      )}
    >
      {services.isPending && <p>Looking at the draft…</p>}
      {services.error && <p role="alert">{services.error.message}</p>}
      {services.data && list.length === 0 && <p>This draft has no step that changes the outside world, so the test touches nothing either way.</p>}
      {list.length > 0 && (
        <>
          <p>This test will really act on:</p>
          <ul className="real-services">
            {list.map((service) => (
              <li key={service.nodeId}><strong>{service.label}</strong> — <code>{service.target}</code></li>
            ))}
          </ul>
          <p>
            Its keys still stay apart from live ones (they start with <code>test:</code>), so no live run will be stopped as a
            duplicate of this test. But these services will do what the steps ask: an invoice is really created, an email really sent.
          </p>
        </>
      )}
    </Dialog>
  );
}
