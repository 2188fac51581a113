/** `onceflow events list <flowId>` and `onceflow events replay <deliveryId>` (optionally on another version or with an edited input): the webhook inbox. */
import { UserError } from '../engine/errors.ts';
import { serverUrl, type Client } from './client.ts';
import { replayThrough } from './runs.ts';

export async function eventsCommand(client: Client, args: string[], options: { json: boolean; wait: boolean; version?: string; input?: string }): Promise<number> {
  const { json } = options;
  const [action, id] = args;
  if (action === 'list' && id) {
    const inbox = await client.events.list.query({ flowId: id });
    if (json) {
      console.log(JSON.stringify(inbox, null, 2));
      return 0;
    }
    for (const trigger of inbox.triggers) console.log(`${trigger.kind} ${trigger.nodeId}: ${serverUrl()}/hooks/${trigger.hookId}`);
    if (inbox.deliveries.length === 0 && inbox.rejections.length === 0) console.log('No deliveries yet.');
    for (const delivery of inbox.deliveries) {
      console.log(`${delivery.id}\t${new Date(delivery.receivedAt).toISOString()}\t${delivery.eventId}\t${delivery.status}\trun ${delivery.runId} (${delivery.runStatus ?? '?'})`);
    }
    for (const rejection of inbox.rejections) {
      console.log(`refused\t${new Date(rejection.receivedAt).toISOString()}\t${rejection.status}\t${rejection.reason}`);
    }
    return 0;
  }
  if (action === 'replay' && id) {
    return replayThrough(client, (request) => client.events.replay.mutate({ eventId: id, ...request }), options);
  }
  throw new UserError('Use `onceflow events list <flowId>` or `onceflow events replay <deliveryId> [--version latest|original] [--input JSON|@file|-] [--wait]`.');
}
