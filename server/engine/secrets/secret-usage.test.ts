/** Finding the secret names a flow document's templates use, wherever they sit. */
import { describe, expect, it } from 'vitest';
import { secretNamesIn } from './secret-usage.ts';

describe('secretNamesIn', () => {
  it('finds dotted and bracketed names at any depth, and nothing else', () => {
    const document = {
      nodes: [
        { data: { request: { headers: { authorization: 'Bearer {{ secrets.API_TOKEN }}' }, url: '{{ trigger.body.url }}' } } },
        { data: { smtp: { password: '{{secrets["SMTP_PASSWORD"]}}' }, to: ['{{ secrets.TO_LIST }}', 'ann@example.com'] } },
        { data: { text: 'secrets.NOT_A_TEMPLATE and {{ steps.secrets.OUTPUT }}' } },
      ],
    };
    expect([...secretNamesIn(document)].sort()).toEqual(['API_TOKEN', 'SMTP_PASSWORD', 'TO_LIST']);
  });

  it('still finds a plain reference in text the template scanner refuses', () => {
    expect([...secretNamesIn({ body: '{"key": "{{ secrets.BODY_KEY }}", "broken": "{{ oops"}' })]).toEqual(['BODY_KEY']);
  });

  it('finds nothing in documents without templates', () => {
    expect(secretNamesIn(undefined).size).toBe(0);
    expect(secretNamesIn({ a: 1, b: [null, true, 'plain text'] }).size).toBe(0);
  });
});
