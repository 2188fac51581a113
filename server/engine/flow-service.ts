/**
 * What people do with flows: create, edit the draft, publish immutable versions, import
 * and export documents. Validation lives in flow/validate.ts; rows in store/flows.ts.
 */
import { newHookId, newId } from '../ids.ts';
import type { FlowStore } from '../store/flows.ts';
import type { FlowVersionRow } from '../store/types.ts';
import { NotFoundError, UserError } from './errors.ts';
import { flowDocumentSchema, type FlowDocument } from './flow/document.ts';
import { readImport } from './flow/import-check.ts';
import { checkFlowReferences } from './flow-references.ts';
import { previewKey, validateFlow, type FlowProblem } from './flow/validate.ts';
import type { KeyChangeStep, KeyChangeSummary } from './publish-guard.ts';

const TRIGGER_KINDS = new Set(['trigger.manual', 'trigger.webhook', 'trigger.schedule']);

export class InvalidFlowError extends UserError {
  override name = 'InvalidFlowError';
  constructor(readonly problems: FlowProblem[], intro = 'This flow has problems to fix first') {
    const errors = problems.filter((problem) => problem.severity === 'error');
    super(`${intro}: ${errors.map((problem) => problem.message).join(' ')}`, { details: problems });
  }
}

export function emptyFlowDocument(name: string): FlowDocument {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: {},
    nodes: [{ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: { label: 'Start' } }],
    edges: [],
  } as FlowDocument;
}

/** Checks the document's shape; a draft may still have problems, but it must be a flow. */
function parseDraft(document: unknown): { flow: FlowDocument; problems: FlowProblem[] } {
  const result = validateFlow(document);
  const shaped = flowDocumentSchema.safeParse(document);
  if (!shaped.success) throw new InvalidFlowError(result.problems, 'This is not an Onceflow flow document');
  return { flow: result.flow ?? shaped.data, problems: result.problems };
}

/** Thrown when a publish changes keys and the person has not confirmed it; `details` is the summary. */
export class KeyChangeNotConfirmedError extends UserError {
  override name = 'KeyChangeNotConfirmedError';
  constructor(readonly summary: KeyChangeSummary) {
    const steps = summary.steps.map((step) => `${step.label}: ${step.sentences[0] ?? ''}`).join(' ');
    super(
      `This version changes the idempotency key of ${summary.steps.length === 1 ? 'a step' : `${summary.steps.length} steps`}. ${steps} ` +
        'Look at what changes, then publish again and confirm the key change.',
      { details: summary },
    );
  }
}

/** The key changes a person confirmed, as recorded on the version. */
export interface ConfirmedKeyChanges {
  confirmedBy: string;
  confirmedAt: number;
  fromVersion: number | null;
  events: number;
  steps: Array<Pick<KeyChangeStep, 'nodeId' | 'label' | 'changed' | 'unchanged' | 'liveFailed' | 'draftFailed'>>;
}

export type KeyChangeLookup = (flowId: string, live: { version: number; document: FlowDocument } | null, draft: FlowDocument) => Promise<KeyChangeSummary>;

const noKeyChanges: KeyChangeLookup = async (_flowId, live) => ({ liveVersion: live?.version ?? null, events: 0, limit: 0, steps: [] });

export type RunStatsLookup = (dayStart: number, weekStart: number) => Promise<Map<string, { runsToday: number; failuresToday: number; duplicatesThisWeek: number }>>;

export function flowService(
  store: FlowStore,
  clock: () => number = Date.now,
  runStats: RunStatsLookup = async () => new Map(),
  keyChanges: KeyChangeLookup = noKeyChanges,
) {
  async function requireFlow(id: string) {
    const flow = await store.get(id);
    if (!flow) throw new NotFoundError(`There is no flow with id ${id}; it may have been deleted.`);
    return flow;
  }

  /** What the draft's key changes mean for past events, against the latest published version. */
  async function summariseDraft(flowId: string, draft: FlowDocument): Promise<KeyChangeSummary> {
    const latest = await store.latestVersion(flowId);
    const live = latest ? { version: latest.version, document: JSON.parse(latest.document) as FlowDocument } : null;
    return keyChanges(flowId, live, draft);
  }

  async function publishDocument(flowId: string, flow: FlowDocument, by: string, confirmKeyChanges = false) {
    const result = validateFlow(flow);
    if (!result.ok || !result.flow) throw new InvalidFlowError(result.problems, 'This flow cannot be published yet');
    // The flows it runs must exist, be published, and never lead back to it.
    const references = await checkFlowReferences(store, flowId, result.flow);
    if (references.length > 0) throw new InvalidFlowError([...result.problems, ...references], 'This flow cannot be published yet');
    const summary = await summariseDraft(flowId, result.flow);
    if (summary.steps.length > 0 && !confirmKeyChanges) throw new KeyChangeNotConfirmedError(summary);
    const confirmed: ConfirmedKeyChanges | null = summary.steps.length === 0 ? null : {
      confirmedBy: by,
      confirmedAt: clock(),
      fromVersion: summary.liveVersion,
      events: summary.events,
      steps: summary.steps.map(({ nodeId, label, changed, unchanged, liveFailed, draftFailed }) => ({ nodeId, label, changed, unchanged, liveFailed, draftFailed })),
    };
    const existing = new Map((await store.triggers(flowId)).map((trigger) => [trigger.nodeId, trigger]));
    const triggers = result.flow.nodes
      .filter((node) => TRIGGER_KINDS.has(node.type))
      .map((node) => ({ nodeId: node.id, kind: node.type, hookId: existing.get(node.id)?.hookId ?? newHookId() }));
    const version = await store.publish(
      { id: newId('ver'), flowId, document: JSON.stringify(result.flow), createdAt: clock(), createdBy: by, keyChanges: confirmed && JSON.stringify(confirmed) },
      triggers,
    );
    return { version, problems: result.problems };
  }

  return {
    /**
     * The draft as it is now, kept for test runs: never live, so testing never publishes.
     * Refused, like a publish, while the draft has problems to fix — except problems of
     * keys: a test (and a proof) is how a person sees what a weak key would do.
     */
    async snapshotDraftForTest(id: string, by = 'admin') {
      const row = await requireFlow(id);
      const draft: unknown = JSON.parse(row.draft);
      const result = validateFlow(draft);
      const blocking = result.problems.filter((problem) => problem.severity === 'error' && problem.field !== 'key');
      const parsed = result.flow ?? (blocking.length === 0 ? flowDocumentSchema.safeParse(draft).data : undefined);
      if (!parsed) throw new InvalidFlowError(blocking.length > 0 ? blocking : result.problems, 'This flow cannot be tested yet');
      return store.snapshotForTest({ id: newId('ver'), flowId: id, document: JSON.stringify(parsed), createdAt: clock(), createdBy: by });
    },

    /** Flows with today's runs and failures and the duplicates stopped in the last 7 days. */
    async list() {
      const now = clock();
      const dayStart = new Date(now).setHours(0, 0, 0, 0);
      const [flows, stats] = await Promise.all([store.list(), runStats(dayStart, now - 7 * 24 * 3600_000)]);
      return flows.map((flow) => ({ ...flow, runsToday: 0, failuresToday: 0, duplicatesThisWeek: 0, ...stats.get(flow.id) }));
    },

    async get(id: string) {
      const row = await requireFlow(id);
      const draft = JSON.parse(row.draft) as FlowDocument;
      const [versions, triggers] = await Promise.all([store.versions(id), store.triggers(id)]);
      return {
        id: row.id,
        name: row.name,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        draft,
        problems: validateFlow(draft).problems,
        versions: versions.map(versionView),
        triggers,
      };
    },

    async create(input: { name: string; document?: unknown }) {
      const name = input.name.trim();
      if (!name) throw new UserError('Give the flow a name.');
      const document = input.document === undefined ? emptyFlowDocument(name) : parseDraft(input.document).flow;
      const now = clock();
      const id = newId('flow');
      await store.create({ id, name, draft: JSON.stringify({ ...document, name }), createdAt: now, updatedAt: now });
      return { id };
    },

    async saveDraft(id: string, document: unknown) {
      await requireFlow(id);
      const { flow, problems } = parseDraft(document);
      await store.saveDraft(id, flow.name, JSON.stringify(flow), clock());
      return { problems };
    },

    /** Refused with KeyChangeNotConfirmedError when the draft changes a key and `confirmKeyChanges` is not set. */
    async publish(id: string, by = 'admin', options: { confirmKeyChanges?: boolean } = {}) {
      const row = await requireFlow(id);
      const { version, problems } = await publishDocument(id, JSON.parse(row.draft) as FlowDocument, by, options.confirmKeyChanges);
      return { versionId: version.id, version: version.version, problems };
    },

    /** What publishing the draft would mean for past events' keys (no steps: nothing to confirm). */
    async keyChanges(id: string): Promise<KeyChangeSummary> {
      const row = await requireFlow(id);
      const result = validateFlow(JSON.parse(row.draft));
      // A draft that cannot be published has no key changes to show; publishing says why.
      if (!result.flow) return noKeyChanges(id, null, JSON.parse(row.draft) as FlowDocument);
      return summariseDraft(id, result.flow);
    },

    async versions(id: string) {
      await requireFlow(id);
      return (await store.versions(id)).map(versionView);
    },

    /**
     * Import creates a flow from a file. A flow without errors is published at once; one
     * with problems the editor can fix becomes a draft (version null) listing them, and
     * publishing it stays refused until they are fixed. Only a file that cannot be opened
     * is refused, and then nothing is stored.
     */
    async import(document: unknown, by = 'admin') {
      const reading = readImport(document);
      if (!reading.openable) throw new UserError(reading.message, { details: reading.problems });
      const validated = validateFlow(reading.flow);
      const now = clock();
      const id = newId('flow');
      // A Run flow step naming a flow this server does not have (or not published) keeps
      // the import a draft that says so, rather than refusing the file.
      const problems = validated.flow ? [...validated.problems, ...(await checkFlowReferences(store, id, validated.flow))] : validated.problems;
      await store.create({ id, name: reading.flow.name, draft: JSON.stringify(reading.flow), createdAt: now, updatedAt: now });
      if (problems.some((problem) => problem.severity === 'error')) return { id, version: null, triggers: [] as Awaited<ReturnType<FlowStore['triggers']>>, problems };
      try {
        const { version } = await publishDocument(id, reading.flow, by);
        return { id, version: version.version, triggers: await store.triggers(id), problems };
      } catch (error) {
        // Publishing a flow that just validated should not fail; if it does, leave nothing behind.
        await store.delete(id);
        throw error;
      }
    },

    /** The draft, or a published version when one is named. */
    async export(id: string, version?: number): Promise<FlowDocument> {
      const row = await requireFlow(id);
      if (version === undefined) return JSON.parse(row.draft) as FlowDocument;
      const match = (await store.versions(id)).find((candidate) => candidate.version === version);
      if (!match) throw new NotFoundError(`Flow ${id} has no version ${version}.`);
      return JSON.parse(match.document) as FlowDocument;
    },

    async versionDocument(versionId: string): Promise<FlowDocument> {
      const version = await store.version(versionId);
      if (!version) throw new NotFoundError(`There is no flow version with id ${versionId}; its flow may have been deleted.`);
      return JSON.parse(version.document) as FlowDocument;
    },

    /** `sample`: the name of the sample to render with (default: the flow's sample input). */
    async previewKey(id: string, nodeId: string, template?: string, document?: unknown, sample?: string) {
      const flow = document === undefined ? (JSON.parse((await requireFlow(id)).draft) as FlowDocument) : parseDraft(document).flow;
      return previewKey(flow, nodeId, template, sample);
    },

    async delete(id: string) {
      if (!(await store.delete(id))) throw new NotFoundError(`There is no flow with id ${id}; it may have been deleted.`);
    },
  };
}

/** A version as lists show it: without its document, with any confirmed key change read. */
function versionView({ document: _document, keyChanges, ...version }: FlowVersionRow) {
  return { ...version, keyChanges: keyChanges === null ? null : (JSON.parse(keyChanges) as ConfirmedKeyChanges) };
}

export type FlowService = ReturnType<typeof flowService>;
