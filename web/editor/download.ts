import { slug } from './sample-fields.ts';

/** Saves a flow document as a file the browser downloads, named after the flow. */
export function downloadDocument(document: { name: string }, suffix = ''): void {
  const blob = new Blob([`${JSON.stringify(document, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = window.document.createElement('a');
  link.href = url;
  link.download = `${slug(document.name) || 'flow'}${suffix}.onceflow.json`;
  link.click();
  // Revoked later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
