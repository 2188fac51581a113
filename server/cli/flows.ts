import { readFileSync } from 'node:fs';
import { UserError } from '../engine/errors.ts';
import { serverUrl, type Client } from './client.ts';

export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UserError(`The file ${path} cannot be read; check the path.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`The file ${path} is not valid JSON (${(error as Error).message}).`);
  }
}

export async function importFlow(client: Client, path: string, json: boolean): Promise<void> {
  const document = readJsonFile(path);
  const result = await client.flows.import.mutate({ document });
  const base = serverUrl();
  const webhooks = result.triggers
    .filter((trigger) => trigger.kind === 'trigger.webhook')
    .map((trigger) => ({ nodeId: trigger.nodeId, url: `${base}/hooks/${trigger.hookId}` }));
  if (json) {
    console.log(JSON.stringify({ id: result.id, version: result.version, webhooks }, null, 2));
    return;
  }
  console.log(result.id);
  for (const webhook of webhooks) console.log(`webhook ${webhook.nodeId}: ${webhook.url}`);
  // A flow with errors is kept as an unpublished draft: say so, then what to fix.
  if (result.version === null) console.error(`Imported as a draft, not published: fix these in the editor, then publish.`);
  for (const problem of result.problems) console.error(`${problem.severity === 'error' ? 'to fix' : 'warning'}: ${problem.message}`);
}

/**
 * `import <file> --flow <flowId>`: the file becomes the flow's draft and is published as its
 * next version, so a fix can be scripted (any unsaved draft in the editor is replaced).
 * When the file changes a side-effect step's key, what that means for past events is
 * printed first, and only `--yes` publishes it (exit 1 otherwise, the draft kept).
 */
export async function importAsNextVersion(client: Client, path: string, flowId: string, json: boolean, yes = false): Promise<number> {
  const document = readJsonFile(path);
  await client.flows.saveDraft.mutate({ id: flowId, document });
  const changes = await client.flows.keyChanges.query({ id: flowId });
  if (changes.steps.length > 0) {
    // On stderr, so --json output stays one document.
    for (const line of keyChangeLines(changes)) console.error(line);
    if (!yes) {
      console.error('Not published. The draft is saved; run the command again with --yes to publish with the new keys.');
      return 1;
    }
  }
  const result = await client.flows.publish.mutate({ id: flowId, confirmKeyChanges: yes });
  if (json) console.log(JSON.stringify({ id: flowId, version: result.version, problems: result.problems }, null, 2));
  else console.log(`Published ${flowId} as version ${result.version}.`);
  for (const problem of result.problems) if (!json) console.error(`warning: ${problem.message}`);
  return 0;
}

type KeyChanges = Awaited<ReturnType<Client['flows']['keyChanges']['query']>>;

function keyChangeLines(changes: KeyChanges): string[] {
  const lines = [`This version changes idempotency keys (compared over ${changes.events} past events of version ${changes.liveVersion}):`];
  for (const step of changes.steps) {
    lines.push(`  ${step.label}: ${step.live.key} → ${step.draft.key}${step.draft.keyScope !== step.live.keyScope ? ` (scope ${step.live.keyScope ?? 'this step'} → ${step.draft.keyScope ?? 'this step'})` : ''}`);
    for (const sentence of step.sentences) lines.push(`    ${sentence}`);
    for (const example of step.examples) lines.push(`    e.g. ${example.from} → ${example.to}`);
  }
  return lines;
}

export async function exportFlow(client: Client, flowId: string, version?: number): Promise<void> {
  const document = await client.flows.export.query({ id: flowId, version });
  console.log(JSON.stringify(document, null, 2));
}

export async function listFlows(client: Client, json: boolean): Promise<void> {
  const flows = await client.flows.list.query();
  if (json) {
    console.log(JSON.stringify(flows, null, 2));
    return;
  }
  if (flows.length === 0) {
    console.log('No flows yet.');
    return;
  }
  for (const flow of flows) {
    const version = flow.latestVersion ? `v${flow.latestVersion}` : 'draft';
    console.log(`${flow.id}\t${version}\t${flow.name}`);
  }
}
