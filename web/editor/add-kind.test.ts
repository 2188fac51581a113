import { describe, expect, it } from 'vitest';
import { addStepChange, STEP_WIDTH } from './add-kind.ts';
import type { Snapshot, StepNode } from './editor-changes.ts';

const node = (id: string, type: string, x: number, y: number, selected = false): StepNode => ({ id, type, position: { x, y }, data: {}, selected });

/*
 *   hook ──▶ check ──true──▶ yes
 */
const snapshot = (selected: string | null): Snapshot => ({
  nodes: [node('hook', 'trigger.webhook', 0, 0, selected === 'hook'), node('check', 'condition', 320, 0, selected === 'check'), node('yes', 'delay', 640, 0)],
  edges: [
    { id: 'e1', source: 'hook', target: 'check' },
    { id: 'e2', source: 'check', sourceHandle: 'true', target: 'yes' },
  ],
  meta: { name: 'Flow' },
});

describe('adding a step from the palette', () => {
  it('drops it centred where the pointer let go, unconnected', () => {
    const change = addStepChange(snapshot(null), 'email.send', { at: { x: 500, y: 300 } });
    expect(change).toMatchObject({ type: 'add', step: { type: 'email.send', position: { x: 500 - STEP_WIDTH / 2 } } });
    expect(change).not.toHaveProperty('after');
  });

  it('puts a clicked step after the selected one, connected, below anything in the way', () => {
    const change = addStepChange(snapshot('hook'), 'transform', {});
    expect(change).toMatchObject({ type: 'add', after: { source: 'hook' } });
    // Right of the trigger is the condition, so the new step goes below it.
    if (change?.type !== 'add') throw new Error('expected an add');
    expect(change.step.position.x).toBe(320);
    expect(change.step.position.y).toBeGreaterThan(0);
  });

  it('leaves a condition through its free exit', () => {
    expect(addStepChange(snapshot('check'), 'delay', {})).toMatchObject({ after: { source: 'check', sourceHandle: 'false' } });
  });

  it('starts with the settings of the kind', () => {
    expect(addStepChange(snapshot(null), 'trigger.webhook', {})).toMatchObject({ step: { id: 'webhook', data: { eventId: '{{ trigger.body.id }}' } } });
    expect(addStepChange(snapshot(null), 'no.such.kind', {})).toBeNull();
  });
});
