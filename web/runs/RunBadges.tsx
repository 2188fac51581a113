/**
 * The version a run ran, and whether it was a test. A test of the draft runs on a
 * snapshot that is never live (numbered below zero on the server): it reads "draft".
 */
import type { RunListItem } from './run-types.ts';

type Badged = Pick<RunListItem, 'version' | 'test'> & { parentRunId?: string | null };

export function RunBadges({ run }: { run: Badged }) {
  return (
    <>
      {run.version !== null && <span className="badge badge--version">{run.version < 0 ? 'draft' : `v${run.version}`}</span>}
      {run.parentRunId && (
        <span className="badge" data-testid="run.child-badge" title="Started by a Run flow step of another run">
          Child
        </span>
      )}
      {run.test && (
        <span
          className="badge badge--test"
          data-testid="run.test-badge"
          title={run.test.targets === 'real-services'
            ? 'A test run sent to the real services; its keys are kept apart from live ones'
            : 'A test run: its side effects went to the built-in stand-ins and its keys are kept apart from live ones'}
        >
          {run.test.targets === 'real-services' ? 'Test · real services' : 'Test'}
        </span>
      )}
    </>
  );
}
