/**
 * The step kinds as the editor presents them: names people read in the palette, the
 * group each belongs to, and the settings a new step starts with. The kinds themselves
 * (and what each needs) are defined by the engine in node-types.ts.
 */
import { FOR_EACH, type NodeType } from '../../core/step-kinds.ts';
import type { StepData } from './editor-changes.ts';

export type KindGroup = 'trigger' | 'action' | 'logic';

/** What the server says about this installation, for a new step's settings. */
export interface NewStepContext {
  /** The sandbox's mail server, when it runs (its port may be any: ONCEFLOW_SANDBOX_SMTP_PORT). */
  sandboxSmtp?: { host: string; port: number } | null;
}

export interface KindInfo {
  kind: NodeType;
  /** The palette's name for the kind; also its accessible name. */
  label: string;
  group: KindGroup;
  /** One line under the name in the palette. */
  summary: string;
  /** Preferred id of a new step; made unique on the canvas. */
  idBase: string;
  defaults(context?: NewStepContext): StepData;
}

export const GROUPS: ReadonlyArray<{ group: KindGroup; title: string }> = [
  { group: 'trigger', title: 'Triggers' },
  { group: 'action', title: 'Actions with side effects' },
  { group: 'logic', title: 'Logic' },
];

export const KINDS: readonly KindInfo[] = [
  {
    kind: 'trigger.webhook',
    label: 'Webhook trigger',
    group: 'trigger',
    summary: 'Starts when another service sends an event',
    idBase: 'webhook',
    defaults: () => ({ label: 'Webhook', eventId: '{{ trigger.body.id }}' }),
  },
  {
    kind: 'trigger.manual',
    label: 'Manual trigger',
    group: 'trigger',
    summary: 'Starts when you press Run',
    idBase: 'start',
    defaults: () => ({ label: 'Start' }),
  },
  {
    kind: 'trigger.schedule',
    label: 'Schedule trigger',
    group: 'trigger',
    summary: 'Starts on a timetable',
    idBase: 'schedule',
    defaults: () => ({ label: 'Every morning', cron: '0 9 * * *' }),
  },
  {
    kind: 'http.request',
    label: 'HTTP request',
    group: 'action',
    summary: 'Calls another service',
    idBase: 'request',
    defaults: () => ({ label: 'HTTP request', request: { method: 'GET', url: '' } }),
  },
  {
    kind: 'email.send',
    label: 'Send email',
    group: 'action',
    summary: 'Sends an email',
    idBase: 'email',
    // The sandbox's mail server where there is one, so a new flow can be tried safely;
    // otherwise the mail server is left for the person to fill in.
    defaults: (context) => ({
      label: 'Send email',
      smtp: context?.sandboxSmtp ? { host: context.sandboxSmtp.host, port: context.sandboxSmtp.port, secure: false } : { host: '', port: 587, secure: false },
      from: '',
      to: '',
      subject: '',
      text: '',
    }),
  },
  {
    kind: 'message.post',
    label: 'Post message',
    group: 'action',
    summary: 'Posts to a chat channel',
    idBase: 'message',
    defaults: () => ({ label: 'Post message', url: '', text: '' }),
  },
  {
    kind: 'flow.run',
    label: 'Run flow',
    group: 'action',
    summary: 'Runs another flow and waits for its result',
    idBase: 'runflow',
    defaults: () => ({ label: 'Run flow', input: '{{ trigger.body }}' }),
  },
  {
    kind: 'transform',
    label: 'Transform',
    group: 'logic',
    summary: 'Picks and renames values',
    idBase: 'transform',
    defaults: () => ({ label: 'Transform', outputs: { value: '' } }),
  },
  {
    kind: 'condition',
    label: 'Condition',
    group: 'logic',
    summary: 'Goes one way or the other',
    idBase: 'condition',
    defaults: () => ({ label: 'Condition', left: '', op: 'equals', right: '' }),
  },
  {
    kind: 'for.each',
    label: FOR_EACH.label,
    group: 'logic',
    summary: 'Runs the steps inside it once per item of a list',
    idBase: 'for-each',
    // The list is left for the person to choose: the inspector offers the sample's lists.
    defaults: () => ({ label: 'For each item', items: '' }),
  },
  {
    kind: 'delay',
    label: 'Delay',
    group: 'logic',
    summary: 'Waits, even for days',
    idBase: 'delay',
    defaults: () => ({ label: 'Wait', for: '1h' }),
  },
  {
    kind: 'state.transition',
    label: 'State transition',
    group: 'logic',
    summary: 'Handles events that arrive out of order',
    idBase: 'state',
    defaults: () => ({ label: 'Move state', entity: '', states: ['created', 'paid'], to: '', onStale: 'stop' }),
  },
];

const BY_KIND = new Map<string, KindInfo>(KINDS.map((info) => [info.kind, info]));

export function kindInfo(kind: string | undefined): KindInfo | undefined {
  return kind === undefined ? undefined : BY_KIND.get(kind);
}

export function kindLabel(kind: string | undefined): string {
  return kindInfo(kind)?.label ?? kind ?? 'Step';
}

export function isTriggerKind(kind: string | undefined): boolean {
  return kind?.startsWith('trigger.') ?? false;
}

/** The data transfer type for dragging a kind from the palette onto the canvas. */
export const KIND_DRAG_TYPE = 'application/x-onceflow-kind';
