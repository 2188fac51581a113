import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../engine/errors.ts';
import { isSideEffectStep } from '../engine/flow/document.ts';
import { flowSamples } from '../engine/flow/samples.ts';
import { previewKey, validateFlow } from '../engine/flow/validate.ts';
import { createGallery, loadTemplates, withBaseUrl } from './gallery.ts';
import { serverBaseUrl } from '../trpc/gallery.ts';

const gallery = createGallery(loadTemplates());
const BASE = 'http://127.0.0.1:4321';

describe('the gallery', () => {
  it('has the four templates, in order', () => {
    expect(gallery.list().map((template) => template.id)).toEqual([
      'order-paid-invoice-receipt',
      'lead-outreach-sequence',
      'payment-events-any-order',
      'lead-batch-welcome',
    ]);
  });

  it.each(gallery.list().map((template) => template.id))('%s is a flow that can be published as it is', (id) => {
    const document = gallery.useTemplate(id, BASE);
    const result = validateFlow(document);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it.each(gallery.list().map((template) => template.id))('%s has named samples whose keys all render and never collide', (id) => {
    const document = gallery.useTemplate(id, BASE);
    const samples = flowSamples(document);
    expect(samples.length).toBeGreaterThan(1);
    for (const node of document.nodes.filter(isSideEffectStep)) {
      const keys = samples.map((sample) => previewKey(document, node.id, undefined, sample.name));
      expect(keys.map((key) => key.error)).toEqual(samples.map(() => undefined));
      expect(keys.flatMap((key) => key.lint)).toEqual([]);
      expect(new Set(keys.map((key) => key.key)).size).toBe(samples.length);
    }
  });

  it('points templates at the server they are copied on', () => {
    const document = gallery.useTemplate('order-paid-invoice-receipt', BASE);
    const invoice = document.nodes.find((node) => node.id === 'invoice');
    expect(invoice?.data.request).toMatchObject({ url: `${BASE}/sandbox/payments/invoices` });
    expect(JSON.stringify(document)).not.toContain('${ONCEFLOW_URL}');
  });

  it('lists each template with the kinds of its steps', () => {
    const payments = gallery.list().find((template) => template.id === 'payment-events-any-order');
    expect(payments).toMatchObject({
      name: 'Payment events in any order',
      kinds: ['trigger.webhook', 'state.transition', 'message.post', 'http.request'],
      sideEffects: 2,
    });
  });

  it('refuses an unknown template by name', () => {
    expect(() => gallery.useTemplate('nope', BASE)).toThrow(NotFoundError);
  });
});

describe('withBaseUrl', () => {
  it('replaces the placeholder in every string, without a doubled slash', () => {
    expect(withBaseUrl({ a: ['${ONCEFLOW_URL}/x', 1], b: { c: 'at ${ONCEFLOW_URL}' } }, 'http://h:1/')).toEqual({
      a: ['http://h:1/x', 1],
      b: { c: 'at http://h:1' },
    });
  });

  it('leaves the template itself untouched', () => {
    const template = { url: '${ONCEFLOW_URL}/x' };
    withBaseUrl(template, BASE);
    expect(template.url).toBe('${ONCEFLOW_URL}/x');
  });
});

describe('serverBaseUrl', () => {
  it('is the address the server listens on, with loopback for a wildcard bind', () => {
    expect(serverBaseUrl({ HOST: '127.0.0.1', PORT: 3000 })).toBe('http://127.0.0.1:3000');
    expect(serverBaseUrl({ HOST: '0.0.0.0', PORT: 80 })).toBe('http://127.0.0.1:80');
    expect(serverBaseUrl({ HOST: '::', PORT: 3000 })).toBe('http://[::1]:3000');
  });
});
