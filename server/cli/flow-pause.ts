/**
 * `onceflow flows pause|resume <flowId>`: stop a flow's side effects during an incident
 * without losing what arrives, then let the held runs go in arrival order.
 */
import type { Client } from './client.ts';

const events = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'event' : 'events'}`;

export async function pauseFlowCommand(client: Client, flowId: string, json: boolean): Promise<void> {
  const state = await client.flows.pause.mutate({ id: flowId });
  if (json) {
    console.log(JSON.stringify(state, null, 2));
    return;
  }
  console.log(`Paused — ${events(state.waiting)} waiting. Webhooks and schedule fires are still recorded; their runs wait for \`onceflow flows resume ${flowId}\`.`);
}

export async function resumeFlowCommand(client: Client, flowId: string, options: { dropMissedFires: boolean; json: boolean }): Promise<void> {
  const result = await client.flows.resume.mutate({ id: flowId, dropScheduleFires: options.dropMissedFires });
  if (options.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const dropped = result.dropped > 0 ? ` Dropped ${result.dropped.toLocaleString('en')} missed schedule ${result.dropped === 1 ? 'fire' : 'fires'}.` : '';
  console.log(`Resumed: ${events(result.released)} released, to run in the order they arrived.${dropped}`);
}
