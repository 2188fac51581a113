import { describe, expect, it } from 'vitest';
import type { StepEdge, StepNode } from './editor-changes.ts';
import { nameEdges } from './edge-names.ts';

const step = (id: string, type: string, label?: string): StepNode => ({ id, type, position: { x: 0, y: 0 }, data: label === undefined ? {} : { label } });

/*
 *   webhook ──▶ check ──Yes──▶ request
 */
const steps = [step('webhook', 'trigger.webhook', 'Shop webhook'), step('check', 'condition', 'Big order?'), step('request', 'http.request', '  ')];
const edges: StepEdge[] = [
  { id: 'e1', source: 'webhook', target: 'check' },
  { id: 'e2', source: 'check', sourceHandle: 'true', target: 'request' },
];

describe('connection names', () => {
  it('name the steps by their labels (or kind), not their ids', () => {
    expect(nameEdges(steps, edges).map((edge) => edge.ariaLabel)).toEqual([
      'Connection from Shop webhook to Big order?',
      'Connection from Big order? (Yes) to HTTP request',
    ]);
  });

  it('keep the same array while no name changes, and follow a renamed step', () => {
    const first = nameEdges(steps, edges);
    const moved = steps.map((node) => ({ ...node, position: { x: 10, y: 10 } }));
    expect(nameEdges(moved, edges, first)).toBe(first);
    const renamed = nameEdges([{ ...steps[0]!, data: { label: 'Order paid' } }, ...steps.slice(1)], edges, first);
    expect(renamed[0]?.ariaLabel).toBe('Connection from Order paid to Big order?');
    expect(renamed[1]).toBe(first[1]);
  });
});
