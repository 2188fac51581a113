/**
 * The probe behind the proof's hardest check: a real worker process, started on the same
 * database, that takes one held test run (store/probe-runs.ts) and is stopped with
 * SIGKILL by its own crash point right after the chosen step acted and before its
 * outcome was recorded — the one window no system can close, reproduced for real.
 */
import { spawn } from 'node:child_process';
import { PROBE_MAIN } from '../probe-main-path.ts';

// Found from this file, not the working directory, which may be anywhere.
const TSX_LOADER = import.meta.resolve('tsx');
/** A probe that has not died by then is stopped, and the check says so (default: 30 s). */
const PROBE_LIMIT_MS = 30_000;

export interface ProbeOutcome {
  /** Killed by its crash point (or, past the limit, by the proof). */
  stoppedHard: boolean;
  /** The last words of a probe that failed on its own. */
  output: string;
}

export type ProbeLauncher = (runId: string, nodeId: string) => Promise<ProbeOutcome>;

/** `environment`: what the probe needs to open the same database and secrets as this process. */
export function probeLauncher(environment: Record<string, string | undefined>): ProbeLauncher {
  return (runId, nodeId) =>
    new Promise((resolve, reject) => {
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries({ ...process.env, ...environment })) if (value !== undefined) env[name] = value;
      env.ONCEFLOW_CRASH_AT = `after-act:${nodeId}`;
      // TypeScript through tsx's loader, as the onceflow command itself runs.
      const child = spawn(process.execPath, ['--import', TSX_LOADER, PROBE_MAIN, runId], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-2000);
      });
      const limit = setTimeout(() => child.kill('SIGKILL'), PROBE_LIMIT_MS);
      child.on('error', (error) => {
        clearTimeout(limit);
        reject(error);
      });
      child.on('exit', (_code, signal) => {
        clearTimeout(limit);
        resolve({ stoppedHard: signal === 'SIGKILL', output: output.trim() });
      });
    });
}
