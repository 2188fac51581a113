/**
 * Which flows use which secret, for the Secrets page: a flow uses a secret when its draft
 * or its live (latest published) version names it in a template, `{{ secrets.NAME }}` or
 * `{{ secrets["NAME"] }}`. Deleting a secret that a flow uses makes that flow's runs fail,
 * so the page names these flows before it deletes.
 */
import { TemplateSyntaxError, templatePaths } from '../../../core/templates/parse.ts';
import type { FlowStore } from '../../store/flows.ts';

export type SecretUseSource = 'draft' | 'live';

export interface SecretUser {
  flowId: string;
  flowName: string;
  /** Where the flow names the secret: its draft, its live version, or both. */
  in: SecretUseSource[];
}

// A text the template scanner refuses (an unclosed `{{` elsewhere in a body) may still
// name a secret; this finds the plain `{{ secrets.NAME }}` form in it.
const LOOSE_REFERENCE = /\{\{\s*secrets\.([A-Za-z0-9_]+)\s*\}\}/g;

/** The secret names a flow document's templates refer to, in any string at any depth. */
export function secretNamesIn(document: unknown): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.includes('{{')) collectFromText(value, names);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(document);
  return names;
}

function collectFromText(text: string, names: Set<string>): void {
  try {
    for (const path of templatePaths(text)) {
      if (path[0] === 'secrets' && path[1] !== undefined) names.add(path[1]);
    }
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    for (const match of text.matchAll(LOOSE_REFERENCE)) names.add(match[1]!);
  }
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Documents are written as JSON by this server; a damaged one names no secret.
    return undefined;
  }
}

/** Every secret name some flow uses, with the flows that use it (sorted by flow name). */
export async function secretUsers(store: Pick<FlowStore, 'list' | 'get' | 'latestVersion'>): Promise<Map<string, SecretUser[]>> {
  const byName = new Map<string, SecretUser[]>();
  for (const summary of await store.list()) {
    const [flow, live] = await Promise.all([store.get(summary.id), store.latestVersion(summary.id)]);
    if (!flow) continue; // deleted in the meantime
    const sources: Array<[SecretUseSource, Set<string>]> = [
      ['draft', secretNamesIn(parsed(flow.draft))],
      ['live', secretNamesIn(parsed(live?.document))],
    ];
    const names = new Set(sources.flatMap(([, found]) => [...found]));
    for (const name of names) {
      const user: SecretUser = { flowId: flow.id, flowName: flow.name, in: sources.filter(([, found]) => found.has(name)).map(([source]) => source) };
      byName.set(name, [...(byName.get(name) ?? []), user]);
    }
  }
  for (const users of byName.values()) users.sort((a, b) => a.flowName.localeCompare(b.flowName));
  return byName;
}
