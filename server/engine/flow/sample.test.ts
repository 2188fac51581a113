import { describe, expect, it } from 'vitest';
import type { FlowDocument } from './document.ts';
import { buildSampleContext, previewKey } from './validate.ts';

function flow(sampleInput?: FlowDocument['sampleInput']): FlowDocument {
  return {
    format: 'onceflow/v1',
    name: 'Invoices',
    ...(sampleInput === undefined ? {} : { sampleInput }),
    nodes: [
      { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
      { id: 'lookup', type: 'http.request', position: { x: 0, y: 0 }, data: { label: 'Find customer', request: { method: 'GET', url: 'https://x.test' } } },
      { id: 'invoice', type: 'http.request', position: { x: 0, y: 0 }, data: { key: 'inv-{{ trigger.body.order.id }}', request: { method: 'POST', url: 'https://x.test' } } },
    ],
    edges: [],
  };
}

describe('buildSampleContext', () => {
  it('uses the sample input as the trigger body and its id as the event id', () => {
    const context = buildSampleContext(flow({ id: 'evt_1', order: { id: '4417' } }));
    expect(context.trigger).toEqual({
      body: { id: 'evt_1', order: { id: '4417' } },
      headers: {},
      eventId: 'evt_1',
      receivedAt: '2000-01-01T00:00:00.000Z',
    });
    expect(context.steps).toEqual({});
    expect(context.flow).toEqual({ name: 'Invoices' });
    expect(context.run).toEqual({ id: 'sample-run', attempt: 1 });
  });

  it('takes a numeric id as text and leaves the event id out when there is none', () => {
    expect(buildSampleContext(flow({ id: 7 })).trigger.eventId).toBe('7');
    expect(buildSampleContext(flow({ order: {} })).trigger).not.toHaveProperty('eventId');
    expect(buildSampleContext(flow([1, 2])).trigger).not.toHaveProperty('eventId');
    expect(buildSampleContext(flow()).trigger.body).toEqual({});
  });
});

describe('previewKey', () => {
  it("renders the step's own key for the sample input", () => {
    expect(previewKey(flow({ order: { id: '4417' } }), 'invoice')).toEqual({ key: 'inv-4417', lint: [] });
  });

  it('renders a template being typed instead of the stored key', () => {
    const preview = previewKey(flow({ order: { id: '4417' } }), 'invoice', '{{ trigger.body.order.id }}-{{ run.id }}');
    expect(preview.key).toBe('4417-sample-run');
    expect(preview.lint.map((lint) => lint.code)).toEqual(['key_uses_run_id']);
  });

  it('explains a field missing from the sample input', () => {
    const preview = previewKey(flow({ order: {} }), 'invoice');
    expect(preview.key).toBeUndefined();
    expect(preview.error).toBe(
      'The sample input has no field "order.id", so "trigger.body.order.id" cannot be shown. Add it to the sample input to see the key.',
    );
    // The same gap is a problem of the key until someone confirms real events carry the field.
    expect(preview.lint.map((lint) => [lint.code, lint.severity])).toEqual([['key_field_missing', 'error']]);
  });

  it('drops the missing-field problem once that exact key text is confirmed', () => {
    const confirmed = flow({ order: {} });
    const invoice = confirmed.nodes.find((node) => node.id === 'invoice')!;
    invoice.data.keyConfirmed = 'inv-{{ trigger.body.order.id }}';
    expect(previewKey(confirmed, 'invoice').lint).toEqual([]);
    // Editing the key un-confirms it.
    expect(previewKey(confirmed, 'invoice', 'inv-{{ trigger.body.order.ref }}').lint.map((lint) => lint.code)).toEqual(['key_field_missing']);
  });

  it('explains a flow without a sample input', () => {
    expect(previewKey(flow(), 'invoice').error).toContain('This flow has no sample input yet');
  });

  it('explains that step outputs are only known when the flow runs', () => {
    const preview = previewKey(flow({}), 'invoice', '{{ steps.lookup.output.customerId }}');
    expect(preview.error).toBe(
      '"steps.lookup.output.customerId" is what step "Find customer" (lookup) gives, which is only known when the flow runs.',
    );
  });

  it('explains headers and secrets', () => {
    expect(previewKey(flow({}), 'invoice', '{{ trigger.headers.webhook-id }}').error).toContain('only known when a real event arrives');
    expect(previewKey(flow({ id: 'evt_1' }), 'invoice', '{{ trigger.body.id }}{{ secrets.SALT }}').error).toContain('never shown in previews');
  });

  it('reports syntax errors and lint together', () => {
    const preview = previewKey(flow({}), 'invoice', 'inv-{{ trigger.body.id');
    expect(preview.error).toContain('never closed');
    expect(preview.lint.map((lint) => lint.code)).toEqual(['template_syntax']);
  });

  it('lints an empty key without an error', () => {
    const preview = previewKey(flow({}), 'lookup');
    expect(preview).toEqual({ lint: [expect.objectContaining({ code: 'key_empty' })] });
  });

  it('says when the step does not exist', () => {
    expect(previewKey(flow({}), 'nope')).toEqual({ error: 'There is no step "nope" in this flow.', lint: [] });
  });
});
