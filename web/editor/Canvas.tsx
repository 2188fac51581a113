import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type Connection,
  type IsValidConnection,
  type NodeTypes,
  type OnConnectEnd,
} from '@xyflow/react';
import { useCallback, useMemo, useState, type DragEvent } from 'react';
import { ALWAYS_DRAWN_STEPS, drawableNodes, FIT_VIEW_OPTIONS, openingViewport } from './canvas-view.ts';
import { useNamedEdges } from './edge-names.ts';
import { connectionProblem, type Size, type StepEdge, type StepNode } from './editor-changes.ts';
import { KIND_DRAG_TYPE, KINDS, kindInfo } from './node-kinds.ts';
import { onEdgesChange, onNodesChange } from './react-flow-changes.ts';
import { StepFinder } from './StepFinder.tsx';
import { LoopNodeView } from './LoopNodeView.tsx';
import { StepNodeView } from './StepNodeView.tsx';
import { dispatch, selectEdges, selectNodes, useEditorStore } from './useEditorStore.ts';
import { addKind } from './add-kind.ts';
import { newStepContext } from './useSandboxAddresses.ts';

// Module-level so React Flow never sees a new object and re-mounts every step.
// `default` also draws kinds this editor does not know yet (from a newer file), so they stay visible.
// A For each step is drawn as a box that holds the steps inside it.
const NODE_TYPES: NodeTypes = { default: StepNodeView, ...Object.fromEntries(KINDS.map((info) => [info.kind, StepNodeView])), 'for.each': LoopNodeView };
const DEFAULT_EDGE_OPTIONS = { type: 'smoothstep', markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 } } as const;
const GROUP_COLORS = { trigger: '#6366f1', action: '#ea7a26', logic: '#0f9488' } as const;
const MINIMAP_STYLE = { width: 180, height: 120 } as const;
const miniMapColor = (node: StepNode) => GROUP_COLORS[kindInfo(node.type)?.group ?? 'logic'];

const isValidConnection: IsValidConnection<StepEdge> = (connection) =>
  connectionProblem(useEditorStore.getState(), connection) === null;

/** The canvas waits for its own size, which decides how the flow opens (canvas-view.ts). */
export function Canvas() {
  const [size, setSize] = useState<Size | null>(null);
  const measure = useCallback((element: HTMLDivElement | null) => {
    if (element) setSize((known) => known ?? { width: element.clientWidth, height: element.clientHeight });
  }, []);
  return (
    <div className="canvas" ref={measure} data-testid="editor.canvas">
      {size && <FlowCanvas size={size} />}
    </div>
  );
}

function FlowCanvas({ size }: { size: Size }) {
  const steps = useEditorStore(selectNodes);
  const nodes = useMemo(() => drawableNodes(steps), [steps]);
  const edges = useNamedEdges(steps, useEditorStore(selectEdges));
  // Decided once, when the flow opens.
  const [opening] = useState(() => openingViewport(useEditorStore.getState().nodes, size));
  const { screenToFlowPosition } = useReactFlow();
  const [refusal, setRefusal] = useState<string | null>(null);

  const onConnect = useCallback((connection: Connection) => {
    dispatch({ type: 'connect', connection });
  }, []);

  const onConnectEnd: OnConnectEnd<StepNode> = useCallback((_event, state) => {
    // Explain a refused connection instead of silently dropping it.
    if (state.isValid !== false || !state.fromNode || !state.toNode) return setRefusal(null);
    setRefusal(
      connectionProblem(useEditorStore.getState(), {
        source: state.fromNode.id,
        target: state.toNode.id,
        sourceHandle: state.fromHandle?.id ?? null,
      }),
    );
  }, []);

  const onDragOver = useCallback((event: DragEvent) => {
    if (!event.dataTransfer.types.includes(KIND_DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const kind = event.dataTransfer.getData(KIND_DRAG_TYPE);
      if (!kind) return;
      event.preventDefault();
      const at = screenToFlowPosition({ x: event.clientX, y: event.clientY });
      void newStepContext().then((context) => addKind(kind, { at }, context));
    },
    [screenToFlowPosition],
  );

  return (
    <div className="canvas__flow" onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow<StepNode, StepEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        isValidConnection={isValidConnection}
        defaultEdgeOptions={DEFAULT_EDGE_OPTIONS}
        deleteKeyCode={null}
        fitView={opening === null}
        fitViewOptions={FIT_VIEW_OPTIONS}
        defaultViewport={opening ?? undefined}
        onlyRenderVisibleElements={nodes.length > ALWAYS_DRAWN_STEPS}
        minZoom={0.1}
        proOptions={{ hideAttribution: true }}
        aria-label="Flow canvas"
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} color="#c9cedb" />
        <Controls showInteractive={false} position="bottom-left" />
        {nodes.length > ALWAYS_DRAWN_STEPS && <StepFinder />}
        <MiniMap<StepNode> pannable zoomable nodeColor={miniMapColor} nodeStrokeWidth={0} nodeBorderRadius={6} position="bottom-right" ariaLabel="Overview of the flow" style={MINIMAP_STYLE} />
        {nodes.length === 0 && (
          <div className="canvas-empty">
            <strong>Start with a trigger</strong>
            <span>Drag a step from the left onto the canvas, or click it to add it.</span>
          </div>
        )}
      </ReactFlow>
      {refusal && (
        <p className="canvas-toast" role="status" onAnimationEnd={() => setRefusal(null)}>
          {refusal}
        </p>
      )}
    </div>
  );
}
