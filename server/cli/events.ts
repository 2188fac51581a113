/** `onceflow events list <flowId>` and `onceflow events replay <eventId>`: the webhook inbox. */
import { UserError } from '../engine/errors.ts';
import { serverUrl, type Client } from './client.ts';

export async function eventsCommand(client: Client, args: string[], json: boolean): Promise<number> {
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
    const { runId } = await client.events.replay.mutate({ eventId: id });
    console.log(json ? JSON.stringify({ runId }) : `Replayed as run ${runId}.`);
    return 0;
  }
  throw new UserError('Use `onceflow events list <flowId>` or `onceflow events replay <eventId>`.');
}
