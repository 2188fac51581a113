/**
 * Named crash points for fault tests: `ONCEFLOW_CRASH_AT=after-claim:invoice` kills the
 * process with SIGKILL the moment the step `invoice` has won its claim. Read once at
 * start; with the variable unset every check is a no-op.
 *
 * Points: after-claim (claim won, receiver not yet called), after-act (receiver answered,
 * outcome not yet recorded), after-checkpoint (step recorded, next step not started).
 * A point without `:nodeId` fires at the first step that reaches it.
 */
export type CrashPoint = 'after-claim' | 'after-act' | 'after-checkpoint';

export interface CrashPoints {
  check(point: CrashPoint, nodeId: string): void;
}

export const noCrashPoints: CrashPoints = { check() {} };

export function createCrashPoints(spec: string | undefined): CrashPoints {
  if (!spec) return noCrashPoints;
  const wanted = spec.split(',').map((entry) => entry.trim()).filter(Boolean);
  return {
    check(point, nodeId) {
      // An item of a For each body (`send@3`) answers to its step's id too: the first item to get there.
      const step = nodeId.split('@')[0];
      if (wanted.includes(point) || wanted.includes(`${point}:${nodeId}`) || wanted.includes(`${point}:${step}`)) process.kill(process.pid, 'SIGKILL');
    },
  };
}
