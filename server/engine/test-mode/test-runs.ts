/**
 * Starting test runs. A test runs the draft as it is now (kept as a snapshot that is
 * never live, so testing never publishes), claims its keys apart from live ones
 * (test-scope.ts) and, unless the person chose the real services, sends its side
 * effects to the stand-ins (stand-ins.ts).
 */
import type { Db } from '../../store/db.ts';
import { standInEffectsOfRuns } from '../../store/stand-in-effects.ts';
import type { FlowDocument } from '../flow/document.ts';
import { isSideEffectStep } from '../flow/document.ts';
import type { FlowService } from '../flow-service.ts';
import type { RunService } from '../run-service.ts';
import type { TestTargets } from '../types.ts';
import { labelOf } from './proof-key-checks.ts';
import { EDITOR_REAL_TEST_SCOPE, EDITOR_TEST_SCOPE } from './test-scope.ts';

export interface TestRunRequest {
  flowId: string;
  /** The trigger body (default: the flow's sample input). */
  input?: unknown;
  /** Where side effects go (default: the stand-ins). */
  targets?: TestTargets;
  /** The test the run's keys belong to (default: the editor's). */
  scope?: string;
  by?: string;
}

/** A service a side-effect step would reach, as the person wrote it (templates unrendered). */
export interface RealService {
  nodeId: string;
  label: string;
  /** "POST https://api.example.com/invoices", "mail through smtp.example.com", … */
  target: string;
}

export function realServicesOf(document: FlowDocument): RealService[] {
  return document.nodes.filter(isSideEffectStep).flatMap((node) => {
    const data = node.data as Record<string, unknown>;
    const label = labelOf(node);
    const request = (data.request ?? {}) as { method?: string; url?: string };
    const smtp = (data.smtp ?? {}) as { host?: string };
    switch (node.type) {
      case 'http.request':
        return [{ nodeId: node.id, label, target: `${String(request.method ?? 'POST').toUpperCase()} ${request.url ?? ''}`.trim() }];
      case 'message.post':
        return [{ nodeId: node.id, label, target: `chat message to ${String(data.url ?? '')}` }];
      case 'email.send':
        return [{ nodeId: node.id, label, target: `mail through ${smtp.host ?? 'its mail server'} to ${String(data.to ?? '')}` }];
      case 'flow.run':
        // The child is a test run of the same test, so it too reaches the real services.
        return [{ nodeId: node.id, label, target: `a test run of the flow ${String(data.flowId ?? '')}, whose steps reach their real services too` }];
      default:
        return [];
    }
  });
}

export function testRunService({ db, flows, runs }: { db: Db; flows: FlowService; runs: RunService }) {
  return {
    async start(request: TestRunRequest) {
      const by = request.by ?? 'admin';
      const version = await flows.snapshotDraftForTest(request.flowId, by);
      const document = JSON.parse(version.document) as FlowDocument;
      const started = await runs.start({
        flowId: request.flowId,
        input: request.input ?? document.sampleInput ?? {},
        by,
        versionId: version.id,
        test: { scope: request.scope ?? (request.targets === 'real-services' ? EDITOR_REAL_TEST_SCOPE : EDITOR_TEST_SCOPE), targets: request.targets ?? 'stand-ins' },
      });
      return { ...started, targets: request.targets ?? 'stand-ins' };
    },

    /** What "use the real services for this test" would reach, for the confirmation to name. */
    async realServices(flowId: string): Promise<RealService[]> {
      const flow = await flows.get(flowId);
      return realServicesOf(flow.draft as FlowDocument);
    },

    /** What the stand-ins received from these runs. */
    standInEffects: (runIds: readonly string[]) => standInEffectsOfRuns(db, runIds),
  };
}

export type TestRunService = ReturnType<typeof testRunService>;
