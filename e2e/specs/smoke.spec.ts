import { expect, test } from '../fixtures/index.ts';
import { trpcCall } from '../fixtures/api.ts';

test('the app loads, lists flows and creates one', async ({ flowList, page, request }) => {
  const seeded = await trpcCall<{ id: string }>(request, 'flows.create', { name: 'Seeded flow' });
  await flowList.open();
  await expect(flowList.rows().filter({ hasText: 'Seeded flow' })).toHaveCount(1);
  const changed = await flowList.changedTimes(flowList.rows().filter({ hasText: 'Seeded flow' }));
  expect(changed.shown).toBe(changed.expected);

  await flowList.createFlow('Order paid → invoice, by hand');
  await expect(page).toHaveURL(/\/flows\/flow_/);
  expect(page.url()).not.toContain(seeded.id);

  await flowList.open();
  await expect(flowList.rows().filter({ hasText: 'Order paid → invoice, by hand' })).toHaveCount(1);
});
