
/**
 * How the editor names each setting of a step, so that a problem points at the field the
 * person sees ("Compare with"), never at the document's key ("right"). Keep these in step
 * with the inspector's labels (web/editor/inspector/). Keyed by `type:field`, then by
 * `field` for settings every step may have.
 */
const LABELS: Record<string, string> = {
  'trigger.webhook:eventId': 'Event id',
  'trigger.webhook:signature': "Check the sender's signature",
  'trigger.webhook:signature.scheme': "Check the sender's signature",
  'trigger.webhook:signature.secret': 'Signing secret',
  'trigger.webhook:signature.header': 'Signature header',
  'trigger.schedule:cron': 'Schedule (cron)',
  'trigger.schedule:timezone': 'Time zone',
  'http.request:request.method': 'Method',
  'http.request:request.url': 'URL',
  'http.request:request.headers': 'Headers',
  'http.request:request.body': 'Body',
  'email.send:smtp': 'Mail server',
  'email.send:smtp.host': 'Mail server (SMTP host)',
  'email.send:smtp.port': 'Port',
  'email.send:smtp.secure': 'Use an encrypted connection from the start (TLS)',
  'email.send:smtp.user': 'User name',
  'email.send:smtp.password': 'Password',
  'email.send:to': 'To',
  'email.send:from': 'From',
  'email.send:cc': 'Cc',
  'email.send:subject': 'Subject',
  'email.send:text': 'Message',
  'email.send:html': 'Message (HTML)',
  'message.post:url': 'Channel webhook URL',
  'message.post:text': 'Message',
  'transform:outputs': 'Outputs',
  'condition:left': 'Check this field',
  'condition:op': 'Condition',
  'condition:right': 'Compare with',
  'delay:for': 'How long',
  'delay:until': 'Until',
  'state.transition:entity': 'Record',
  'state.transition:states': 'States, in order',
  'state.transition:to': 'Move to',
  'state.transition:onStale': 'If an older event arrives after a newer one',
  'state.transition:requires': 'Before moving, wait until the record has reached',
  'state.transition:requiresTimeout': 'Give up waiting after',
  'for.each:items': 'Items',
  'for.each:concurrency': 'Items at once',
  'for.each:onItemError': 'If an item fails',
  'for.each:maxItems': 'Most items',
  'flow.run:flowId': 'Flow to run',
  'flow.run:input': 'Input',
  label: 'Label',
  sideEffect: 'Has side effects',
  key: 'Idempotency key',
  keyScope: 'Key scope',
  keyTtl: 'How long the key is kept',
  retry: 'Retries when the service is busy or unreachable',
  onUncertain: 'If the outcome is unknown',
  receiverKeyHeader: 'Header name',
  timeoutMs: 'Give up waiting after (seconds)',
};

/**
 * The field as a sentence names it: `"Compare with"`, `the header "x-api-key"`, `the
 * output "net"`. A part of a field (an item of a list, a key of the body) is named by
 * the field that holds it.
 */
export function fieldLabel(type: string, field: string): string {
  return knownLabel(type, field) ?? `the setting "${field}"`;
}

function knownLabel(type: string, field: string): string | null {
  const header = /^request\.headers\.(.+)$/.exec(field);
  if (type === 'http.request' && header) return `the header "${header[1]}"`;
  const output = /^outputs\.(.+)$/.exec(field);
  if (type === 'transform' && output) return `the output "${output[1]}"`;
  for (let path = field; path !== ''; path = path.replace(/(\.[^.]*|\[\d+\])$/, '')) {
    const label = LABELS[`${type}:${path}`] ?? LABELS[path];
    if (label) return `"${label}"`;
    if (!/[.[]/.test(path)) break;
  }
  return null;
}

/**
 * What a missing field is, to follow "needs": `Step "X" (x) needs a sender address ("From").`
 * Fields not listed read `needs "Label"`.
 */
const NEEDS: Record<string, string> = {
  'trigger.webhook:eventId': 'an event id (what tells one delivery from another, e.g. {{ trigger.body.id }})',
  'trigger.webhook:signature.scheme': 'a signature scheme',
  'trigger.webhook:signature.secret': 'a signing secret',
  'trigger.schedule:cron': 'a schedule (a cron expression such as "0 9 * * 1")',
  'http.request:request': 'a request (a method and a URL)',
  'http.request:request.method': 'a method (GET, POST, PUT, PATCH or DELETE)',
  'http.request:request.url': 'a URL',
  'email.send:smtp': 'mail server settings (host and port)',
  'email.send:smtp.host': 'a mail server address (SMTP host)',
  'email.send:smtp.port': 'a mail server port (SMTP port)',
  'email.send:from': 'a sender address',
  'email.send:to': 'a recipient address',
  'email.send:subject': 'a subject',
  'message.post:url': 'a webhook URL to post to',
  'message.post:text': 'a message text',
  'transform:outputs': 'outputs (names and the values they take)',
  'condition:left': 'a field or value to check',
  'condition:op': 'a comparison',
  'condition:right': 'a value to compare with',
  'delay:until': 'a moment to wait until',
  'state.transition:entity': 'a record key (which record this step moves, e.g. invoice:{{ trigger.body.id }})',
  'state.transition:states': 'a list of at least two states, in order',
  'state.transition:to': 'a state to move to',
  retry: 'a retry setting',
  'retry.max': 'a number of retries (0 to 10)',
  'retry.backoff': 'a retry pace (steady or growing)',
  'retry.delayMs': 'a retry delay in milliseconds',
  onUncertain: 'a choice of what to do when the outcome is unknown',
  receiverKeyHeader: 'a header name for the key (letters, digits and "-")',
  timeoutMs: 'a time to give up waiting',
  sideEffect: 'a yes or no for "Has side effects"',
  key: 'an idempotency key',
  label: 'a label',
};

/** `a sender address ("From")`: what is needed, then the field to find it in. */
export function fieldName(type: string, field: string): string {
  const label = knownLabel(type, field);
  const what = NEEDS[`${type}:${field}`] ?? NEEDS[field];
  if (!what) return label ?? fieldLabel(type, field);
  if (!label) return what;
  // "a URL" already names the field "URL"; "a sender address" needs ("From") to find it.
  const shown = label.replace(/^the /, '');
  return what.toLowerCase().includes(shown.replace(/"/g, '').toLowerCase()) ? what : `${what} (${shown})`;
}
