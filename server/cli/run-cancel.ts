/** `onceflow runs cancel <runId>`: cancels a run and says what had already happened. */
import type { Client } from './client.ts';

/** "“Create invoice” was acting; it will finish and be recorded. 1 step will not run. 1 child run it started was cancelled too." */
export function cancelSentence(result: { seq: number; acting: { label: string }[]; notRun: number; children?: number }): string {
  const parts = [`Run #${result.seq} cancelled.`];
  const names = result.acting.map((step) => `“${step.label}”`).join(' and ');
  if (names) parts.push(`${names} ${result.acting.length === 1 ? 'was' : 'were'} acting; ${result.acting.length === 1 ? 'it' : 'they'} will finish and be recorded, and nothing after ${result.acting.length === 1 ? 'it' : 'them'} starts.`);
  parts.push(result.notRun === 0 ? 'Every step had already run.' : `${result.notRun} ${result.notRun === 1 ? 'step' : 'steps'} will not run.`);
  const children = result.children ?? 0;
  if (children > 0) parts.push(`${children} child ${children === 1 ? 'run it started was' : 'runs it started were'} cancelled too.`);
  return parts.join(' ');
}

export async function cancelCommand(client: Client, runId: string, json: boolean): Promise<number> {
  const result = await client.runs.cancel.mutate({ runId });
  console.log(json ? JSON.stringify(result) : cancelSentence(result));
  return 0;
}
