import { describe, expect, it } from 'vitest';
import { UserError } from '../errors.ts';
import { TemplateSyntaxError } from './parse.ts';
import {
  MissingPathError,
  lookupPath,
  renderDeep,
  renderTemplate,
  renderValue,
  type RenderContext,
} from './render.ts';

function context(): RenderContext {
  return {
    trigger: {
      body: {
        id: 'evt_1',
        order: { id: '4417', total: 120, paid: true, note: null, lines: [{ sku: 'A-1' }, { sku: 'B-2' }] },
        'order id': 'with space',
        empty: '',
        zero: 0,
      },
      headers: { 'webhook-id': 'msg_2Lf', 'content-type': 'application/json' },
      eventId: 'evt_1',
      receivedAt: '2024-05-01T10:00:00.000Z',
    },
    steps: { invoice: { output: { id: 'inv_9', amount: 120 } } },
    flow: { id: 'flow_1', name: 'Invoices' },
    secrets: { API_TOKEN: 'tok_secret' },
    run: { id: 'run_1', attempt: 2 },
    now: '2024-05-01T10:00:05.000Z',
  };
}

function missing(run: () => unknown): MissingPathError {
  try {
    run();
  } catch (error) {
    if (error instanceof MissingPathError) return error;
    throw error;
  }
  throw new Error('expected a MissingPathError');
}

describe('renderTemplate', () => {
  it('fills nested paths into the text', () => {
    expect(renderTemplate('order-{{ trigger.body.order.id }}:invoice', context())).toBe('order-4417:invoice');
  });

  it('reads header names with hyphens', () => {
    expect(renderTemplate('{{ trigger.headers.webhook-id }}', context())).toBe('msg_2Lf');
  });

  it('reads list items by .0 or [1] and quoted keys', () => {
    const ctx = context();
    expect(renderTemplate('{{ trigger.body.order.lines.0.sku }}/{{ trigger.body.order.lines[1].sku }}', ctx)).toBe('A-1/B-2');
    expect(renderTemplate('{{ trigger.body["order id"] }}', ctx)).toBe('with space');
  });

  it('writes numbers, yes/no, null, lists and groups as text', () => {
    const ctx = context();
    expect(renderTemplate('{{ trigger.body.order.total }}', ctx)).toBe('120');
    expect(renderTemplate('{{ trigger.body.order.paid }}', ctx)).toBe('true');
    expect(renderTemplate('{{ trigger.body.order.note }}', ctx)).toBe('null');
    expect(renderTemplate('{{ trigger.body.zero }}', ctx)).toBe('0');
    expect(renderTemplate('{{ trigger.body.empty }}!', ctx)).toBe('!');
    expect(renderTemplate('{{ trigger.body.order.lines }}', ctx)).toBe('[{"sku":"A-1"},{"sku":"B-2"}]');
    expect(renderTemplate('{{ steps.invoice.output }}', ctx)).toBe('{"id":"inv_9","amount":120}');
  });

  it('reads step outputs, the flow, the run and now', () => {
    expect(
      renderTemplate('{{ steps.invoice.output.id }} {{ flow.name }} {{ run.id }}#{{ run.attempt }} {{ now }}', context()),
    ).toBe('inv_9 Invoices run_1#2 2024-05-01T10:00:05.000Z');
  });

  it('writes a Date as an ISO time', () => {
    const ctx = { ...context(), now: new Date('2024-01-02T03:04:05.000Z') };
    expect(renderTemplate('{{ now }}', ctx)).toBe('2024-01-02T03:04:05.000Z');
  });

  it('names the full path and the missing part when a value does not exist', () => {
    const error = missing(() => renderTemplate('x-{{ trigger.body.customer.id }}', context()));
    expect(error).toBeInstanceOf(UserError);
    expect(error.path).toBe('trigger.body.customer.id');
    expect(error.segments).toEqual(['trigger', 'body', 'customer', 'id']);
    expect(error.message).toBe(
      'The value "trigger.body.customer.id" does not exist in this run\'s data (missing "customer").',
    );
  });

  it('explains when a path walks into a plain value', () => {
    const error = missing(() => renderTemplate('{{ trigger.body.order.id.value }}', context()));
    expect(error.path).toBe('trigger.body.order.id.value');
    expect(error.message).toContain('"trigger.body.order.id" is a text');
    const fromNull = missing(() => renderTemplate('{{ trigger.body.order.note.text }}', context()));
    expect(fromNull.message).toContain('"trigger.body.order.note" is empty (null)');
  });

  it('treats a missing list item as missing', () => {
    const error = missing(() => renderTemplate('{{ trigger.body.order.lines[5].sku }}', context()));
    expect(error.path).toBe('trigger.body.order.lines.5.sku');
    expect(error.message).toContain('(missing "5")');
  });

  it('explains a step output that is not there yet', () => {
    const error = missing(() => renderTemplate('{{ steps.email.output.id }}', context()));
    expect(error.path).toBe('steps.email.output.id');
    expect(error.message).toContain('step "email" has no output yet');
  });

  it('quotes path parts with special characters in the error', () => {
    const error = missing(() => renderTemplate('{{ trigger.body["no such"] }}', context()));
    expect(error.path).toBe('trigger.body["no such"]');
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'never reads inherited properties such as %s',
    (name) => {
      const error = missing(() => renderTemplate(`{{ trigger.body.${name} }}`, context()));
      expect(error.path).toBe(`trigger.body.${name}`);
      expect(() => renderTemplate(`{{ trigger.body.order.lines.${name} }}`, context())).toThrow(MissingPathError);
    },
  );

  it('never calls or prints functions found in the data', () => {
    const ctx = context();
    ctx.flow = { danger: () => 'ran' };
    expect(() => renderTemplate('{{ flow.danger }}', ctx)).toThrow(MissingPathError);
  });

  it('refuses an unknown root as missing', () => {
    expect(missing(() => renderTemplate('{{ process.env }}', context())).path).toBe('process.env');
  });

  it('passes syntax errors on', () => {
    expect(() => renderTemplate('{{ trigger.body.id', context())).toThrow(TemplateSyntaxError);
  });
});

describe('secrets', () => {
  it('fills in a stored secret', () => {
    expect(renderTemplate('Bearer {{ secrets.API_TOKEN }}', context())).toBe('Bearer tok_secret');
  });

  it('says that no secret of that name is stored', () => {
    const error = missing(() => renderTemplate('{{ secrets.STRIPE_KEY }}', context()));
    expect(error.path).toBe('secrets.STRIPE_KEY');
    expect(error.message).toContain('No secret named "STRIPE_KEY" is stored');
  });

  it('says the same when there are no secrets at all', () => {
    const ctx = context();
    delete ctx.secrets;
    expect(missing(() => renderTemplate('{{ secrets.API_TOKEN }}', ctx)).message).toContain(
      'No secret named "API_TOKEN" is stored',
    );
  });

  it('never renders all secrets at once', () => {
    const error = missing(() => renderTemplate('{{ secrets }}', context()));
    expect(error.message).toContain('needs the name of a secret');
    expect(error.message).not.toContain('tok_secret');
  });
});

describe('renderValue', () => {
  it('keeps the type of a lone placeholder', () => {
    const ctx = context();
    expect(renderValue('{{ trigger.body.order.total }}', ctx)).toBe(120);
    expect(renderValue(' {{ trigger.body.order.paid }} ', ctx)).toBe(true);
    expect(renderValue('{{ trigger.body.order.note }}', ctx)).toBeNull();
    expect(renderValue('{{ steps.invoice.output }}', ctx)).toEqual({ id: 'inv_9', amount: 120 });
    expect(renderValue('{{ trigger.body.order.lines }}', ctx)).toEqual([{ sku: 'A-1' }, { sku: 'B-2' }]);
  });

  it('gives text when there is more than one placeholder or any other text', () => {
    const ctx = context();
    expect(renderValue('{{ trigger.body.order.total }} EUR', ctx)).toBe('120 EUR');
    expect(renderValue('{{ trigger.body.order.total }}{{ trigger.body.zero }}', ctx)).toBe('1200');
    expect(renderValue('plain', ctx)).toBe('plain');
  });

  it('is strict too', () => {
    expect(() => renderValue('{{ trigger.body.nope }}', context())).toThrow(MissingPathError);
  });
});

describe('renderDeep', () => {
  it('renders every string inside lists and groups and keeps other values', () => {
    const rendered = renderDeep(
      {
        headers: { 'Idempotency-Key': 'inv-{{ trigger.body.order.id }}', 'X-Hook': '{{ trigger.headers.webhook-id }}' },
        list: ['{{ trigger.body.order.total }}', 3, true, null],
        keep: 5,
      },
      context(),
    );
    expect(rendered).toEqual({
      headers: { 'Idempotency-Key': 'inv-4417', 'X-Hook': 'msg_2Lf' },
      list: ['120', 3, true, null],
      keep: 5,
    });
  });

  it('does not change the value it was given', () => {
    const input = { a: '{{ trigger.body.id }}' };
    renderDeep(input, context());
    expect(input).toEqual({ a: '{{ trigger.body.id }}' });
  });

  it('fails on the first missing value', () => {
    expect(() => renderDeep({ a: ['{{ trigger.body.order.nope }}'] }, context())).toThrow(
      /trigger\.body\.order\.nope/,
    );
  });
});

describe('lookupPath', () => {
  it('uses the same rules as placeholders', () => {
    expect(lookupPath(context(), ['trigger', 'headers', 'webhook-id'])).toBe('msg_2Lf');
    expect(() => lookupPath(context(), ['trigger', 'body', 'constructor'])).toThrow(MissingPathError);
  });
});
