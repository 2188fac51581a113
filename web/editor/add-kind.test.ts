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

  it('puts a clicked step in between the selected one and its next step, moving what follows right', () => {
    const change = addStepChange(snapshot('hook'), 'transform', {});
    if (change?.type !== 'add') throw new Error('expected an add');
    expect(change.after).toEqual({ source: 'hook' });
    // Right of the trigger, where the condition was; the condition and what follows it move right.
    expect(change.step.position).toEqual({ x: 320, y: 0 });
    expect(change.room).toEqual({ nodeIds: ['check', 'yes'], dx: 320 });
  });

  it('moves nothing when the spot after the selected step is free', () => {
    const spread: Snapshot = { ...snapshot('hook'), nodes: snapshot('hook').nodes.map((n) => (n.id === 'hook' ? n : { ...n, position: { x: n.position.x + 800, y: 0 } })) };
    const change = addStepChange(spread, 'transform', {});
    expect(change).toMatchObject({ type: 'add', after: { source: 'hook' }, step: { position: { x: 320, y: 0 } } });
    expect(change).not.toHaveProperty('room');
  });

  it('gives a new Send email step the sandbox mail server the server reports, or none', () => {
    const withSandbox = addStepChange(snapshot(null), 'email.send', {}, { sandboxSmtp: { host: '127.0.0.1', port: 40123 } });
    expect(withSandbox).toMatchObject({ step: { data: { smtp: { host: '127.0.0.1', port: 40123, secure: false } } } });
    const without = addStepChange(snapshot(null), 'email.send', {});
    expect(without).toMatchObject({ step: { data: { smtp: { host: '' } } } });
  });

  it('leaves a condition through its free exit', () => {
    expect(addStepChange(snapshot('check'), 'delay', {})).toMatchObject({ after: { source: 'check', sourceHandle: 'false' } });
  });

  it('starts with the settings of the kind', () => {
    expect(addStepChange(snapshot(null), 'trigger.webhook', {})).toMatchObject({ step: { id: 'webhook', data: { eventId: '{{ trigger.body.id }}' } } });
    expect(addStepChange(snapshot(null), 'no.such.kind', {})).toBeNull();
  });
});

describe('choosing a trigger', () => {
  /*
   *   start (untouched Manual trigger) ──▶ request
   */
  const fresh = (startData: Record<string, unknown> = { label: 'Start' }): Snapshot => ({
    nodes: [{ ...node('start', 'trigger.manual', 0, 0), data: startData }, node('request', 'http.request', 320, 0)],
    edges: [{ id: 'e-start-request', source: 'start', target: 'request' }],
    meta: { name: 'New flow' },
  });

  it('replaces the untouched trigger a new flow starts with, in its place', () => {
    expect(addStepChange(fresh(), 'trigger.webhook', {})).toMatchObject({
      type: 'replace',
      nodeId: 'start',
      step: { type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
    });
    // Dropped somewhere, it goes where it was dropped.
    expect(addStepChange(fresh(), 'trigger.schedule', { at: { x: 500, y: 300 } })).toMatchObject({ type: 'replace', step: { position: { x: 500 - STEP_WIDTH / 2 } } });
  });

  it('only shows the trigger when the same kind is chosen again', () => {
    expect(addStepChange(fresh(), 'trigger.manual', {})).toEqual({ type: 'selectOnly', nodeIds: ['start'] });
  });

  it('adds a second trigger beside one somebody has changed', () => {
    expect(addStepChange(fresh({ label: 'Start by hand' }), 'trigger.webhook', {})).toMatchObject({ type: 'add' });
  });
});
