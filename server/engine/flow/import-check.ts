import { FLOW_FORMAT } from '../../../core/step-kinds.ts';
import { flowDocumentSchema, type FlowDocument } from './document.ts';
import { documentIssueToProblem, type FlowProblem } from './problems.ts';

/**
 * What an imported file is, before anything is stored. A flow whose steps have problems
 * the editor can fix (a missing key, a connection to a missing step) is still a flow: it
 * opens as a draft with its problems listed. Only a file that cannot be opened at all is
 * refused — not a flow document, another format, a format from a newer Onceflow, or
 * parts so damaged that they cannot be drawn — each with one sentence saying which.
 */
export type ImportReading =
  | { openable: true; flow: FlowDocument }
  | { openable: false; message: string; problems: FlowProblem[] };

const FORMAT_PATTERN = /^onceflow\/v(\d+)$/;
const READ_VERSION = Number(FORMAT_PATTERN.exec(FLOW_FORMAT)?.[1] ?? 1);

export function readImport(input: unknown): ImportReading {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return refused('This file is not an Onceflow flow: it holds no flow document. Choose a file made with Export.');
  }
  const format = (input as Record<string, unknown>).format;
  if (format === undefined) {
    return refused(`This file is not an Onceflow flow: it does not say "format": "${FLOW_FORMAT}". Choose a file made with Export.`);
  }
  const version = typeof format === 'string' ? FORMAT_PATTERN.exec(format) : null;
  if (version && Number(version[1]) > READ_VERSION) {
    return refused(
      `This flow was made by a newer Onceflow (format ${format}); this one reads ${FLOW_FORMAT}. Update Onceflow, or export the flow again from the newer one in the older format.`,
    );
  }
  if (format !== FLOW_FORMAT) {
    return refused(`This file has the format ${JSON.stringify(format)}, which is not an Onceflow flow format (a flow file says "${FLOW_FORMAT}"). Choose a file made with Export.`);
  }
  const parsed = flowDocumentSchema.safeParse(input);
  if (parsed.success) return { openable: true, flow: parsed.data };
  const problems = parsed.error.issues.map((issue) => documentIssueToProblem(input, issue));
  const count = problems.length === 1 ? 'one part of it is' : `${problems.length} parts of it are`;
  return {
    openable: false,
    message: `This flow file cannot be opened, because ${count} damaged beyond what the editor can fix. Correct the file, or export the flow again.`,
    problems,
  };
}

function refused(message: string): ImportReading {
  return { openable: false, message, problems: [{ severity: 'error', code: 'not_openable', message }] };
}
