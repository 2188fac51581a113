import { describe, expect, it } from 'vitest';
import { UserError } from '../errors.ts';
import {
  NODE_TYPES,
  TRIGGER_TYPES,
  conditionDataSchema,
  delayDataSchema,
  emailSendDataSchema,
  flowDocumentSchema,
  flowRunDataSchema,
  httpRequestDataSchema,
  isSideEffectStep,
  messagePostDataSchema,
  parseDuration,
  scheduleTriggerDataSchema,
  stateTransitionDataSchema,
  transformDataSchema,
  webhookTriggerDataSchema,
} from './document.ts';

describe('flowDocumentSchema', () => {
  it('fills in defaults for position, data and edges and drops editor-only fields', () => {
    const doc = flowDocumentSchema.parse({
      format: 'onceflow/v1',
      name: 'Manual',
      nodes: [{ id: 'start', type: 'trigger.manual', selected: true, measured: { width: 10 } }],
    });
    expect(doc.nodes[0]).toEqual({ id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} });
    expect(doc.edges).toEqual([]);
  });

  it('keeps unknown node types, which validation reports in words', () => {
    const doc = flowDocumentSchema.parse({ format: 'onceflow/v1', name: 'x', nodes: [{ id: 'a', type: 'foo.bar' }] });
    expect(doc.nodes[0]?.type).toBe('foo.bar');
  });

  it.each([
    [{ format: 'onceflow/v2', name: 'x', nodes: [] }, 'format'],
    [{ format: 'onceflow/v1', name: '  ', nodes: [] }, 'name'],
    [{ format: 'onceflow/v1', name: 'x', nodes: [{ id: 'has space', type: 't' }] }, 'nodes.0.id'],
    [{ format: 'onceflow/v1', name: 'x', nodes: [{ id: 'a', type: 't', position: { x: 'left' } }] }, 'nodes.0.position.x'],
    [{ format: 'onceflow/v1', name: 'x', nodes: [], edges: [{ id: 'e', source: 'a' }] }, 'edges.0.target'],
  ])('refuses a malformed document (%#)', (input, path) => {
    const result = flowDocumentSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });

  it('accepts null handles, as the canvas writes them', () => {
    const doc = flowDocumentSchema.parse({
      format: 'onceflow/v1',
      name: 'x',
      nodes: [],
      edges: [{ id: 'e', source: 'a', target: 'b', sourceHandle: null, targetHandle: null }],
    });
    expect(doc.edges[0]?.sourceHandle).toBeNull();
  });
});

describe('node types', () => {
  it('lists the kinds of DESIGN.md §3, triggers first', () => {
    expect(NODE_TYPES).toHaveLength(12);
    expect(NODE_TYPES.slice(0, 3)).toEqual([...TRIGGER_TYPES]);
    expect(NODE_TYPES).toContain('state.transition');
    expect(NODE_TYPES).toContain('for.each');
    expect(NODE_TYPES).toContain('flow.run');
  });
});

describe('per-type data schemas', () => {
  const fails = (schema: { safeParse(value: unknown): { success: boolean } }, data: unknown): boolean =>
    !schema.safeParse(data).success;

  it('flow.run needs a flow to run, and is a side effect whatever it declares', () => {
    expect(fails(flowRunDataSchema, { input: '{{ trigger.body }}' })).toBe(true);
    expect(fails(flowRunDataSchema, { flowId: '  ' })).toBe(true);
    expect(fails(flowRunDataSchema, { flowId: 'flow_1', input: { order: '{{ trigger.body.id }}' } })).toBe(false);
    expect(isSideEffectStep({ type: 'flow.run', data: { sideEffect: false, flowId: 'flow_1' } })).toBe(true);
  });

  it('http.request needs a method and a URL, and keeps extra fields', () => {
    const data = { request: { method: 'post', url: 'https://x.test' }, extra: 1 };
    expect(httpRequestDataSchema.parse(data)).toMatchObject({ extra: 1 });
    expect(fails(httpRequestDataSchema, { request: { method: 'POST' } })).toBe(true);
    expect(fails(httpRequestDataSchema, { request: { method: 'FETCH', url: 'https://x.test' } })).toBe(true);
  });

  it('condition needs left and a known op, and right unless the op is exists', () => {
    expect(fails(conditionDataSchema, { left: '{{ a }}', op: 'exists' })).toBe(false);
    expect(fails(conditionDataSchema, { left: '{{ a }}', op: 'equals', right: '' })).toBe(false);
    expect(fails(conditionDataSchema, { left: '{{ a }}', op: 'equals' })).toBe(true);
    expect(fails(conditionDataSchema, { left: '{{ a }}', op: 'matches', right: 'x' })).toBe(true);
  });

  it('delay needs exactly one of for and until, and for is a duration or a template', () => {
    expect(fails(delayDataSchema, { for: '90s' })).toBe(false);
    expect(fails(delayDataSchema, { for: '{{ trigger.body.wait }}' })).toBe(false);
    expect(fails(delayDataSchema, { until: '2030-01-01T00:00:00Z' })).toBe(false);
    expect(fails(delayDataSchema, {})).toBe(true);
    expect(fails(delayDataSchema, { for: '2 hours' })).toBe(true);
    expect(fails(delayDataSchema, { for: '2h', until: '2030-01-01' })).toBe(true);
  });

  it('transform needs at least one output with a usable name', () => {
    expect(fails(transformDataSchema, { outputs: { total: '{{ trigger.body.total }}' } })).toBe(false);
    expect(fails(transformDataSchema, { outputs: {} })).toBe(true);
    expect(fails(transformDataSchema, { outputs: { 'a.b': 'x' } })).toBe(true);
    expect(fails(transformDataSchema, {})).toBe(true);
  });

  it('email.send needs host, port, from, to and subject', () => {
    const ok = { smtp: { host: 'smtp.test', port: 587 }, from: 'a@x.test', to: ['b@x.test'], subject: 'Hi' };
    expect(fails(emailSendDataSchema, ok)).toBe(false);
    expect(fails(emailSendDataSchema, { ...ok, smtp: { host: 'smtp.test', port: 70000 } })).toBe(true);
    expect(fails(emailSendDataSchema, { ...ok, to: [] })).toBe(true);
    expect(fails(emailSendDataSchema, { ...ok, subject: '' })).toBe(true);
  });

  it('message.post needs url and text; triggers need their fields', () => {
    expect(fails(messagePostDataSchema, { url: 'https://hooks.test', text: 'hi' })).toBe(false);
    expect(fails(messagePostDataSchema, { url: 'https://hooks.test' })).toBe(true);
    expect(fails(webhookTriggerDataSchema, {})).toBe(true);
    expect(fails(scheduleTriggerDataSchema, { cron: '0 9 * * 1' })).toBe(false);
    expect(fails(scheduleTriggerDataSchema, { cron: '' })).toBe(true);
  });

  it('state.transition needs an entity, two distinct states and a target among them', () => {
    const ok = { entity: 'invoice:{{ trigger.body.id }}', states: ['draft', 'paid'], to: 'paid' };
    expect(fails(stateTransitionDataSchema, ok)).toBe(false);
    expect(fails(stateTransitionDataSchema, { ...ok, to: '{{ trigger.body.state }}' })).toBe(false);
    expect(fails(stateTransitionDataSchema, { ...ok, states: ['paid'] })).toBe(true);
    expect(fails(stateTransitionDataSchema, { ...ok, states: ['paid', 'paid'] })).toBe(true);
    expect(fails(stateTransitionDataSchema, { ...ok, to: 'void' })).toBe(true);
  });

  it('checks the common side-effect fields', () => {
    const base = { url: 'https://hooks.test', text: 'hi' };
    expect(fails(messagePostDataSchema, { ...base, retry: { max: 3, backoff: 'exponential' }, keyTtl: '30d' })).toBe(false);
    expect(fails(messagePostDataSchema, { ...base, retry: { max: 11, backoff: 'fixed' } })).toBe(true);
    expect(fails(messagePostDataSchema, { ...base, retry: { max: 1.5, backoff: 'fixed' } })).toBe(true);
    expect(fails(messagePostDataSchema, { ...base, onUncertain: 'ignore' })).toBe(true);
    expect(fails(messagePostDataSchema, { ...base, keyTtl: 'forever' })).toBe(true);
    expect(fails(messagePostDataSchema, { ...base, receiverKeyHeader: 'Idempotency Key' })).toBe(true);
    expect(fails(messagePostDataSchema, { ...base, sideEffect: 'yes' })).toBe(true);
  });
});

describe('isSideEffectStep', () => {
  const node = (type: string, data: Record<string, unknown> = {}) => ({ type, data });

  it('follows an explicit sideEffect setting', () => {
    expect(isSideEffectStep(node('email.send', { sideEffect: false }))).toBe(false);
    expect(isSideEffectStep(node('transform', { sideEffect: true }))).toBe(true);
  });

  it('defaults to true for email, messages and requests that change things', () => {
    expect(isSideEffectStep(node('email.send'))).toBe(true);
    expect(isSideEffectStep(node('message.post'))).toBe(true);
    expect(isSideEffectStep(node('http.request', { request: { method: 'POST' } }))).toBe(true);
    expect(isSideEffectStep(node('http.request', { request: { method: 'delete' } }))).toBe(true);
    expect(isSideEffectStep(node('http.request'))).toBe(true);
  });

  it('defaults to false for reading requests and everything else', () => {
    for (const method of ['GET', 'head', 'OPTIONS']) {
      expect(isSideEffectStep(node('http.request', { request: { method } }))).toBe(false);
    }
    for (const type of ['trigger.webhook', 'transform', 'condition', 'delay', 'state.transition']) {
      expect(isSideEffectStep(node(type))).toBe(false);
    }
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['3d', 259_200_000],
    [' 30d ', 2_592_000_000],
  ])('reads %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '2', 'h', '1.5h', '2 h', '-1s', '3w', '1h30m'])('refuses %j in plain words', (text) => {
    expect(() => parseDuration(text)).toThrow(UserError);
    expect(() => parseDuration(text)).toThrow(/not a length of time.*like 90s, 15m, 2h or 3d/);
  });
});
