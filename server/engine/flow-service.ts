/**
 * What people do with flows: create, edit the draft, publish immutable versions, import
 * and export documents. Validation lives in flow/validate.ts; rows in store/flows.ts.
 */
import { newHookId, newId } from '../ids.ts';
import type { FlowStore } from '../store/flows.ts';
import { NotFoundError, UserError } from './errors.ts';
import { flowDocumentSchema, type FlowDocument } from './flow/document.ts';
import { readImport } from './flow/import-check.ts';
import { previewKey, validateFlow, type FlowProblem } from './flow/validate.ts';

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

export type RunStatsLookup = (dayStart: number, weekStart: number) => Promise<Map<string, { runsToday: number; failuresToday: number; duplicatesThisWeek: number }>>;

export function flowService(store: FlowStore, clock: () => number = Date.now, runStats: RunStatsLookup = async () => new Map()) {
  async function requireFlow(id: string) {
    const flow = await store.get(id);
    if (!flow) throw new NotFoundError(`There is no flow with id ${id}; it may have been deleted.`);
    return flow;
  }

  async function publishDocument(flowId: string, flow: FlowDocument, by: string) {
    const result = validateFlow(flow);
    if (!result.ok || !result.flow) throw new InvalidFlowError(result.problems, 'This flow cannot be published yet');
    const existing = new Map((await store.triggers(flowId)).map((trigger) => [trigger.nodeId, trigger]));
    const triggers = result.flow.nodes
      .filter((node) => TRIGGER_KINDS.has(node.type))
      .map((node) => ({ nodeId: node.id, kind: node.type, hookId: existing.get(node.id)?.hookId ?? newHookId() }));
    const version = await store.publish(
      { id: newId('ver'), flowId, document: JSON.stringify(result.flow), createdAt: clock(), createdBy: by },
      triggers,
    );
    return { version, problems: result.problems };
  }

  return {
    /**
     * The draft as it is now, kept for test runs: never live, so testing never publishes.
     * Refused, like a publish, while the draft has problems to fix.
     */
    async snapshotDraftForTest(id: string, by = 'admin') {
      const row = await requireFlow(id);
      const result = validateFlow(JSON.parse(row.draft) as FlowDocument);
      if (!result.ok || !result.flow) throw new InvalidFlowError(result.problems, 'This flow cannot be tested yet');
      return store.snapshotForTest({ id: newId('ver'), flowId: id, document: JSON.stringify(result.flow), createdAt: clock(), createdBy: by });
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
        versions: versions.map(({ document: _document, ...version }) => version),
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

    async publish(id: string, by = 'admin') {
      const row = await requireFlow(id);
      const { version, problems } = await publishDocument(id, JSON.parse(row.draft) as FlowDocument, by);
      return { versionId: version.id, version: version.version, problems };
    },

    async versions(id: string) {
      await requireFlow(id);
      return (await store.versions(id)).map(({ document: _document, ...version }) => version);
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
      const { problems } = validateFlow(reading.flow);
      const now = clock();
      const id = newId('flow');
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

export type FlowService = ReturnType<typeof flowService>;
