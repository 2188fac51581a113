/** Flows, their immutable versions and their trigger ids (Prisma: low-rate, editor-paced). */
import type { Prisma } from './prisma.ts';

export interface FlowSummaryRow {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  latestVersion: number | null;
}

export interface FlowRow {
  id: string;
  name: string;
  draft: string;
  createdAt: number;
  updatedAt: number;
}

export interface FlowVersionRow {
  id: string;
  flowId: string;
  version: number;
  document: string;
  createdAt: number;
  createdBy: string;
}

export interface TriggerRow {
  hookId: string;
  flowId: string;
  nodeId: string;
  kind: string;
}

const toFlow = (row: { id: string; name: string; draft: string; createdAt: bigint; updatedAt: bigint }): FlowRow => ({
  ...row,
  createdAt: Number(row.createdAt),
  updatedAt: Number(row.updatedAt),
});

const toVersion = (row: {
  id: string; flowId: string; version: number; document: string; createdAt: bigint; createdBy: string;
}): FlowVersionRow => ({ ...row, createdAt: Number(row.createdAt) });

export function flowStore(prisma: Prisma) {
  return {
    async list(): Promise<FlowSummaryRow[]> {
      const rows = await prisma.flow.findMany({
        orderBy: { updatedAt: 'desc' },
        select: {
          id: true, name: true, createdAt: true, updatedAt: true,
          versions: { select: { version: true }, orderBy: { version: 'desc' }, take: 1 },
        },
      });
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: Number(row.createdAt),
        updatedAt: Number(row.updatedAt),
        latestVersion: row.versions[0]?.version ?? null,
      }));
    },

    async get(id: string): Promise<FlowRow | null> {
      const row = await prisma.flow.findUnique({ where: { id } });
      return row ? toFlow(row) : null;
    },

    async create(flow: FlowRow): Promise<void> {
      await prisma.flow.create({
        data: { ...flow, createdAt: BigInt(flow.createdAt), updatedAt: BigInt(flow.updatedAt) },
      });
    },

    /** Returns false when the flow does not exist. */
    async saveDraft(id: string, name: string, draft: string, now: number): Promise<boolean> {
      const { count } = await prisma.flow.updateMany({ where: { id }, data: { name, draft, updatedAt: BigInt(now) } });
      return count === 1;
    },

    async delete(id: string): Promise<boolean> {
      const { count } = await prisma.flow.deleteMany({ where: { id } });
      await prisma.trigger.deleteMany({ where: { flowId: id } });
      return count === 1;
    },

    async versions(flowId: string): Promise<FlowVersionRow[]> {
      const rows = await prisma.flowVersion.findMany({ where: { flowId }, orderBy: { version: 'desc' } });
      return rows.map(toVersion);
    },

    async version(versionId: string): Promise<FlowVersionRow | null> {
      const row = await prisma.flowVersion.findUnique({ where: { id: versionId } });
      return row ? toVersion(row) : null;
    },

    async latestVersion(flowId: string): Promise<FlowVersionRow | null> {
      const row = await prisma.flowVersion.findFirst({ where: { flowId }, orderBy: { version: 'desc' } });
      return row ? toVersion(row) : null;
    },

    /**
     * Publishes the next version number. The unique (flow, version) index settles two
     * publishes at once: the loser's insert fails and it tries the following number.
     */
    async publish(version: Omit<FlowVersionRow, 'version'>, triggers: Omit<TriggerRow, 'flowId'>[]): Promise<FlowVersionRow> {
      for (let tries = 0; ; tries++) {
        const latest = await prisma.flowVersion.findFirst({ where: { flowId: version.flowId }, orderBy: { version: 'desc' } });
        const next = (latest?.version ?? 0) + 1;
        try {
          const row = await prisma.$transaction(async (tx) => {
            const created = await tx.flowVersion.create({
              data: { ...version, version: next, createdAt: BigInt(version.createdAt) },
            });
            for (const trigger of triggers) {
              await tx.trigger.upsert({
                where: { flowId_nodeId: { flowId: version.flowId, nodeId: trigger.nodeId } },
                create: { ...trigger, flowId: version.flowId, createdAt: BigInt(version.createdAt) },
                update: { kind: trigger.kind },
              });
            }
            return created;
          });
          return toVersion(row);
        } catch (error) {
          if (tries < 3 && (error as { code?: string }).code === 'P2002') continue;
          throw error;
        }
      }
    },

    async triggers(flowId: string): Promise<TriggerRow[]> {
      return prisma.trigger.findMany({ where: { flowId }, select: { hookId: true, flowId: true, nodeId: true, kind: true } });
    },
  };
}

export type FlowStore = ReturnType<typeof flowStore>;
