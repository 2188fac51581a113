/**
 * What Try this step shows for each kind of step, from the kind's own `prepare`: the
 * request a network step would send (with the key where the receiver gets it), the email
 * a mail step would hand over, or the output and decision of a step that changes nothing
 * outside. Nothing here sends anything.
 */
import type { ConditionOp } from '../../core/step-kinds.ts';
import type { TypedStep } from './flow/planned-step.ts';
import { compare, type Comparison } from './steps/condition.ts';
import { messageIdFor, KEY_HEADER, type EmailAction } from './steps/email-send.ts';
import { keyHeaderValue } from './steps/http-headers.ts';
import type { HttpAction } from './steps/http-request.ts';
import { toHttpAction, type MessageAction } from './steps/message-post.ts';
import { SECRET_MASK } from '../../core/templates/render.ts';

export interface TriedHeader {
  name: string;
  value: string;
}

/** An HTTP request exactly as it would leave: http.request and message.post. */
export interface TriedRequest {
  method: string;
  url: string;
  headers: TriedHeader[];
  /** Null when the request carries none (GET and HEAD never do). */
  body: string | null;
}

/** An email as it would be handed to the mail server. */
export interface TriedEmail {
  server: string;
  user: string | null;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  headers: TriedHeader[];
}

export function httpView(action: HttpAction, key: string | undefined): TriedRequest {
  const headers = Object.entries(action.headers).map(([name, value]) => ({ name, value: String(value) }));
  if (action.keyHeader && key !== undefined) headers.push({ name: action.keyHeader, value: keyHeaderValue(key) });
  const bodyless = action.method === 'GET' || action.method === 'HEAD';
  return { method: action.method, url: action.url, headers, body: bodyless ? null : (action.body ?? null) };
}

export function messageView(message: MessageAction, key: string | undefined): TriedRequest {
  return httpView(toHttpAction(message), key);
}

export function emailView(email: EmailAction, key: string | undefined): TriedEmail {
  const headers: TriedHeader[] = key === undefined ? [] : [
    { name: KEY_HEADER, value: key },
    { name: 'Message-ID', value: messageIdFor(key, email) },
  ];
  const { host, port, secure, user, password } = email.smtp;
  // The password is never shown, whether it came from a secret or was typed into the step.
  const login = user ? `${user}${password ? ` (password ${SECRET_MASK})` : ''}` : null;
  return {
    server: `${host.includes(':') ? `[${host}]` : host}:${port}${secure ? ' (TLS)' : ''}`,
    user: login,
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    text: email.text ?? null,
    html: email.html ?? null,
    headers,
  };
}

const OP_WORDS: Record<ConditionOp, string> = {
  equals: 'is',
  not_equals: 'is not',
  contains: 'contains',
  exists: 'has a value',
  gt: 'is more than',
  lt: 'is less than',
};

const shown = (value: unknown) => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? 'nothing');

/** The exit a condition takes for this sample, in words, and the output it records. */
export function conditionDecision(comparison: Comparison): { decision: string; output: unknown } {
  const result = compare(comparison);
  const { left, op, right } = comparison;
  // More and less compare numbers, so the values read as numbers there.
  const show = (value: unknown) => (op === 'gt' || op === 'lt' ? String(value) : shown(value));
  const test = op === 'exists'
    ? `${comparison.missing ? 'the field is missing' : shown(left)} ${OP_WORDS[op]}`
    : `${show(left)} ${OP_WORDS[op]} ${show(right)}`;
  return {
    decision: `${result ? 'Yes' : 'No'}: ${test} is ${result ? 'true' : 'false'}, so the flow goes on through the "${result ? 'Yes' : 'No'}" exit.`,
    output: { result, branch: result ? 'true' : 'false', left: left ?? null, op, right: right ?? null },
  };
}

export interface EntityNow {
  state: string | null;
}

/** What a state transition would do to the record as it stands now (nothing is moved). */
export function transitionDecision(
  step: TypedStep<'state.transition'>,
  prepared: { entity: string; to: string; requires?: string | undefined; onStale: 'stop' | 'continue' },
  current: EntityNow,
): string {
  const { states } = step.data;
  const now = current.state;
  const rank = (state: string | null) => (state === null ? -1 : states.indexOf(state));
  const record = `"${prepared.entity}"`;
  if (prepared.requires && rank(now) < rank(prepared.requires)) {
    return `It would wait: ${record} is ${now === null ? 'not known yet' : `"${now}"`} and must first reach "${prepared.requires}".`;
  }
  if (rank(prepared.to) > rank(now)) {
    return `It would move ${record} from ${now === null ? 'no state yet' : `"${now}"`} to "${prepared.to}".`;
  }
  const after = prepared.onStale === 'continue' ? 'the flow would go on' : 'this branch of the flow would stop here';
  return `It would change nothing: ${record} is already "${now}", which is not before "${prepared.to}", so the event counts as older and ${after}.`;
}
