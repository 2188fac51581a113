/**
 * Flows that carry secrets in every place a step can send one, for the masking tests:
 * http.request (query, headers, JSON body, key), message.post (the address is the secret),
 * email.send (SMTP password, subject, text) and a webhook whose delivery holds a value.
 */
const manual = { id: 'start', type: 'trigger.manual', position: { x: 0, y: 0 }, data: {} };

function oneStep(name: string, step: Record<string, unknown>) {
  return {
    format: 'onceflow/v1',
    name,
    sampleInput: { ref: 'r-1', mode: 'ok', amount: 1, user: 'ann', to: 'ann@example.test' },
    nodes: [manual, { position: { x: 200, y: 0 }, ...step }],
    edges: [{ id: 'e1', source: 'start', target: step.id }],
  };
}

function httpCall(url: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'call', type: 'http.request',
    data: {
      sideEffect: true, key: '{{ secrets.KEYPART }}:{{ trigger.body.ref }}', onUncertain: 'review', timeoutMs: 600, retry: { max: 0 },
      request: {
        method: 'POST', url,
        headers: { authorization: 'Basic {{ secrets.BASIC }}', 'x-api-key': '{{ secrets.BASIC }}' },
        body: { token: '{{ secrets.BODY }}', amount: '{{ trigger.body.amount }}', ref: '{{ trigger.body.ref }}' },
      },
      ...extra,
    },
  };
}

function chat(url: string) {
  return {
    id: 'post', type: 'message.post',
    data: { sideEffect: true, key: '{{ trigger.body.ref }}:chat', url, text: 'Paid {{ secrets.BODY }} for {{ trigger.body.ref }}', timeoutMs: 2000, retry: { max: 0 } },
  };
}

export function maskingFlows(options: { echoUrl: string; closedPort: number; mail: { host: string; port: number } }) {
  const query = '?ref={{ trigger.body.ref }}&token={{ secrets.TOKEN }}';
  return {
    http: oneStep('HTTP with secrets', httpCall(`${options.echoUrl}/echo/{{ trigger.body.mode }}${query}`)),
    honoured: oneStep('HTTP honouring keys', httpCall(`${options.echoUrl}/echo/fail${query}`, {
      receiverKeyHeader: 'Idempotency-Key', retry: { max: 1, backoff: 'fixed', delayMs: 20 },
    })),
    unreachable: oneStep('HTTP to nowhere', httpCall(`http://127.0.0.1:${options.closedPort}/x${query}`)),
    chat: oneStep('Chat', chat('{{ secrets.CHAT_URL }}')),
    chatRefused: oneStep('Chat refused', chat('{{ secrets.CHAT_REFUSE }}')),
    chatDown: oneStep('Chat down', chat('{{ secrets.CHAT_DOWN }}')),
    email: oneStep('Email', {
      id: 'mail', type: 'email.send',
      data: {
        sideEffect: true, key: '{{ trigger.body.ref }}:mail', timeoutMs: 3000, retry: { max: 0 },
        smtp: { host: options.mail.host, port: options.mail.port, secure: false, user: '{{ trigger.body.user }}', password: '{{ secrets.SMTP_PASSWORD }}' },
        from: 'flows@example.test', to: '{{ trigger.body.to }}',
        subject: 'Order {{ trigger.body.ref }} {{ secrets.SUBJECT }}',
        text: 'Hello {{ secrets.SHORT }} and {{ secrets.SUBJECT }}.',
      },
    }),
    webhook: {
      format: 'onceflow/v1',
      name: 'Webhook that echoes a token',
      sampleInput: { id: 'evt-1', token: 't' },
      nodes: [
        { id: 'hook', type: 'trigger.webhook', position: { x: 0, y: 0 }, data: { eventId: '{{ trigger.body.id }}' } },
        { id: 'keep', type: 'transform', position: { x: 200, y: 0 }, data: { outputs: { seen: '{{ trigger.body.token }}', nested: '{{ trigger.body.nested }}' } } },
      ],
      edges: [{ id: 'e1', source: 'hook', target: 'keep' }],
    },
  };
}
