/**
 * The one sentence a recovery's summed preview is said in, the same on the page and in the
 * CLI: "1,204 runs: 3,391 steps skipped, 1,180 duplicates stopped, 1,204 emails will be
 * sent, 12 keys expired and will act again".
 */
export interface PreviewFigures {
  runs: number;
  counts: { skip: number; deduplicate: number; act: number; review: number };
  acting: { label: string; type: string; runs: number }[];
  expired: number;
}

const number = (value: number) => value.toLocaleString('en-US');
export const counted = (value: number, one: string, many = `${one}s`) => `${number(value)} ${value === 1 ? one : many}`;

/** What one acting step does, in the words of its kind. */
export function actingWords(step: { label: string; type: string; runs: number }): string {
  if (step.type === 'email.send') return `${counted(step.runs, 'email')} will be sent (“${step.label}”)`;
  if (step.type === 'message.post') return `${counted(step.runs, 'message')} will be posted (“${step.label}”)`;
  return `“${step.label}” will act ${step.runs === 1 ? 'once' : `${number(step.runs)} times`}`;
}

export function previewSentence(preview: PreviewFigures): string {
  if (preview.runs === 0) return 'No run matches these choices.';
  const parts = [
    `${counted(preview.counts.skip, 'step')} skipped`,
    `${counted(preview.counts.deduplicate, 'duplicate')} stopped`,
    ...preview.acting.map(actingWords),
  ];
  if (preview.counts.review > 0) parts.push(`${counted(preview.counts.review, 'step')} will wait for a decision`);
  if (preview.expired > 0) parts.push(`${counted(preview.expired, 'key')} expired and will act again`);
  return `${counted(preview.runs, 'run')}: ${parts.join(', ')}`;
}
