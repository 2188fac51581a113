/**
 * The flow as it was run, read-only: the editor's step boxes, each framed in the colour
 * of its status in this run, with a legend. Clicking a step opens its details. A
 * condition's exit the run took is drawn strong and the other faint, so the path shows.
 */
import '@xyflow/react/dist/style.css';
import '../editor/editor.css';
import { Background, BackgroundVariant, Controls, MarkerType, Panel, ReactFlow, useReactFlow, useStore, type NodeProps, type NodeTypes } from '@xyflow/react';
import { createContext, memo, useContext, useEffect, useMemo } from 'react';
import type { FlowDocument } from '../../server/engine/flow/document.ts';
import type { StepEdge, StepNode } from '../editor/editor-changes.ts';
import { drawableNodes } from '../editor/canvas-view.ts';
import { snapshotFromDocument } from '../editor/flow-document.ts';
import { LoopBox } from '../editor/LoopNodeView.tsx';
import { KINDS } from '../editor/node-kinds.ts';
import { StepNodeView } from '../editor/StepNodeView.tsx';
import { conditionOutcome, EXIT_WORDS } from './condition-words.ts';
import { loopCounts } from './LoopItems.tsx';
import { STEP_STATUS_MEANINGS, STEP_STATUS_WORDS } from './run-words.ts';
import type { StepInfo, StepStatus } from './run-types.ts';

const StatusContext = createContext<ReadonlyMap<string, StepStatus>>(new Map());
const LoopContext = createContext<ReadonlyMap<string, NonNullable<StepInfo['loop']>>>(new Map());

/** The editor's step box, with this run's status around it. */
const RunStepNode = memo(function RunStepNode(props: NodeProps<StepNode>) {
  const status = useContext(StatusContext).get(props.id) ?? 'not_reached';
  return (
    <div className={`run-node status--${status}`} data-testid={`run.node.${props.id}`} data-status={status}>
      <span className="run-node__status">
        <span className="status-dot" aria-hidden="true" />
        {STEP_STATUS_WORDS[status]}
      </span>
      <StepNodeView {...props} />
    </div>
  );
});

/** A For each step: the box holding its steps, with this run's status and its items' counts. */
const RunLoopNode = memo(function RunLoopNode(props: NodeProps<StepNode>) {
  const status = useContext(StatusContext).get(props.id) ?? 'not_reached';
  const loop = useContext(LoopContext).get(props.id);
  const note = loop ? (
    <span className="loop-node__note" data-testid="run.loop-counts">
      {loopCounts(loop)}
    </span>
  ) : undefined;
  return (
    <div className={`run-node run-node--loop status--${status}`} data-testid={`run.node.${props.id}`} data-status={status}>
      <span className="run-node__status">
        <span className="status-dot" aria-hidden="true" />
        {STEP_STATUS_WORDS[status]}
      </span>
      <LoopBox {...props} note={note} />
    </div>
  );
});

// Module-level so React Flow never re-mounts the steps; `default` draws kinds this app does not know.
const NODE_TYPES: NodeTypes = { default: RunStepNode, ...Object.fromEntries(KINDS.map((info) => [info.kind, RunStepNode])), 'for.each': RunLoopNode };
const FIT_VIEW_OPTIONS = { padding: 0.25, maxZoom: 1 } as const;
const PRO_OPTIONS = { hideAttribution: true } as const;
const UNREACHED: ReadonlySet<StepStatus> = new Set(['not_reached', 'skipped']);

interface RunCanvasProps {
  document: FlowDocument;
  steps: readonly StepInfo[];
  statuses: ReadonlyMap<string, StepStatus>;
  selectedId: string | null;
  onSelect(nodeId: string | null): void;
}

export function RunCanvas({ document, steps, statuses, selectedId, onSelect }: RunCanvasProps) {
  const base = useMemo(() => snapshotFromDocument(document), [document]);
  // Loops sized to hold their steps, as in the editor.
  const nodes = useMemo(() => drawableNodes(base.nodes).map((node) => ({ ...node, selected: node.id === selectedId, draggable: false, connectable: false })), [base, selectedId]);
  const loops = useMemo(() => new Map(steps.flatMap((step) => (step.loop ? [[step.nodeId, step.loop] as const] : []))), [steps]);
  // The exit each condition took in this run, by the condition's id.
  const taken = useMemo(() => {
    const map = new Map<string, 'true' | 'false'>();
    for (const step of steps) {
      const outcome = step.type === 'condition' ? conditionOutcome(step.output) : null;
      if (outcome) map.set(step.nodeId, outcome.branch);
    }
    return map;
  }, [steps]);
  // A connection into a step the run did not reach is drawn faint; a condition's exit is
  // strong when the run went that way and faint when it did not.
  const edges = useMemo<StepEdge[]>(
    () =>
      base.edges.map((edge) => {
        const exit = taken.get(edge.source);
        const path = exit === undefined || (edge.sourceHandle !== 'true' && edge.sourceHandle !== 'false') ? null : edge.sourceHandle === exit ? 'taken' : 'not-taken';
        const faint = path === 'not-taken' || UNREACHED.has(statuses.get(edge.target) ?? 'not_reached');
        const exitWords = edge.sourceHandle === 'true' || edge.sourceHandle === 'false' ? EXIT_WORDS[edge.sourceHandle] : undefined;
        return {
          ...edge,
          ...(exitWords ? { label: path === 'taken' ? `${exitWords} (taken)` : exitWords } : {}),
          type: 'smoothstep',
          className: ['run-edge', path === 'taken' ? 'is-taken' : '', path === 'not-taken' ? 'is-not-taken' : '', faint ? 'is-faint' : ''].filter(Boolean).join(' '),
          markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 },
          focusable: false,
        };
      }),
    [base, statuses, taken],
  );

  return (
    <StatusContext.Provider value={statuses}>
      <LoopContext.Provider value={loops}>
      <div className="run-canvas canvas" data-testid="run.canvas">
        <ReactFlow<StepNode, StepEdge>
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          onNodeClick={(_event, node) => onSelect(node.id)}
          onPaneClick={() => onSelect(null)}
          fitView
          fitViewOptions={FIT_VIEW_OPTIONS}
          minZoom={0.1}
          proOptions={PRO_OPTIONS}
          aria-label="The flow as it ran"
        >
          <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} color="#c9cedb" />
          <Controls showInteractive={false} position="bottom-left" />
          <Panel position="top-left">
            <Legend />
          </Panel>
          <FitOnResize />
        </ReactFlow>
      </div>
      </LoopContext.Provider>
    </StatusContext.Provider>
  );
}

/** Keeps the whole flow in view when the canvas changes size (a step's details opening beside it). */
function FitOnResize() {
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  const { fitView } = useReactFlow();
  useEffect(() => {
    if (width > 0 && height > 0) void fitView(FIT_VIEW_OPTIONS);
  }, [width, height, fitView]);
  return null;
}

function Legend() {
  return (
    <ul className="status-legend" aria-label="Legend">
      {STEP_STATUS_MEANINGS.map(({ status, meaning }) => (
        <li key={status} className={`status-legend__item status--${status}`} title={meaning}>
          <span className="status-dot" aria-hidden="true" />
          {STEP_STATUS_WORDS[status]}
        </li>
      ))}
    </ul>
  );
}
