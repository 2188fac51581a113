/**
 * `onceflow prove <flowId> [--sample NAME] [--json]`: proves the draft is safe to repeat
 * (the checks of Prove it, against the stand-ins), following each check on stderr, then
 * prints the report in sentences. Exit 0 when every check passed, 1 otherwise, so a script
 * can refuse to publish a flow that is not proven.
 */
import { PROOF_CHECK_TITLES, type ProofCheckId, type ProofReport } from '../engine/test-mode/proof-report.ts';
import { UserError } from '../engine/errors.ts';
import type { Client } from './client.ts';

/** "Ten at once" for a check's id; anything else as it came. */
function checkTitle(current: string): string {
  return PROOF_CHECK_TITLES[current as ProofCheckId] ?? current;
}

/** The report as a person reads it: a headline, then per check its summary and per step a sentence. */
export function proofReportText(report: ProofReport, serverUrl: string): string {
  const lines: string[] = [];
  const failed = report.checks.filter((check) => !check.passed).length;
  const on = `“${report.flowName}” with the sample “${report.sample}”`;
  if (report.error) lines.push(`The proof of ${on} could not be carried out: ${report.error}`);
  else if (report.status === 'passed') lines.push(`Proven: ${on} passed every check (${report.checks.length}).`);
  else lines.push(`Not proven: ${on} failed ${failed} of ${report.checks.length} ${report.checks.length === 1 ? 'check' : 'checks'}.`);
  for (const check of report.checks) {
    lines.push('', `${check.passed ? 'Passed' : 'FAILED'} — ${check.title}: ${check.summary}`);
    // Most sentences name their step already ("“Create invoice” acted once").
    for (const step of check.steps) lines.push(`  ${step.passed ? '✓' : '✗'} ${step.sentence.includes(step.label) ? '' : `“${step.label}”: `}${step.sentence}`);
    if (check.runIds.length > 0) lines.push(`  Test runs: ${check.runIds.map((id) => `${serverUrl}/runs/${id}`).join(' ')}`);
  }
  lines.push('', `Report: ${serverUrl}/flows/${report.flowId}/proofs/${report.id}`);
  return lines.join('\n');
}

/**
 * Follows a proof on stderr: "Checking: Ten at once… (2 of 5)", then "✓ Ten at once passed".
 * Every check gets both lines, even one that began and ended between two looks.
 */
async function followProof(client: Client, proofId: string, timeoutMs: number): Promise<ProofReport> {
  const deadline = Date.now() + timeoutMs;
  const announced = new Set<string>();
  const finished = new Set<string>();
  // Numbered in the order they are seen: some checks run beside others.
  const announce = (title: string, total: number) => {
    if (announced.has(title)) return;
    announced.add(title);
    process.stderr.write(`Checking: ${title}… (${announced.size} of ${total})\n`);
  };
  for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
    const report = await client.proofs.get.query({ proofId });
    const { total, current } = report.progress;
    for (const check of report.checks) {
      if (finished.has(check.title)) continue;
      announce(check.title, total);
      finished.add(check.title);
      process.stderr.write(`  ${check.passed ? '✓' : '✗'} ${check.title} ${check.passed ? 'passed' : 'FAILED'}\n`);
    }
    if (report.status !== 'running') return report;
    if (current) announce(checkTitle(current), total);
    if (Date.now() > deadline) throw new UserError(`The proof ${proofId} is still running; follow it at /flows/${report.flowId}/proofs/${proofId}.`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

export async function proveCommand(client: Client, flowId: string, options: { sample?: string; json: boolean; serverUrl: string }): Promise<number> {
  const { proofId } = await client.proofs.start.mutate({ flowId, ...(options.sample === undefined ? {} : { sample: options.sample }) });
  const report = await followProof(client, proofId, 10 * 60_000);
  console.log(options.json ? JSON.stringify(report, null, 2) : proofReportText(report, options.serverUrl));
  return report.status === 'passed' ? 0 : 1;
}
