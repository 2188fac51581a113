import { HTTP_METHODS } from '../../../core/step-kinds.ts';
import { textOrUndefined } from '../data-path.ts';
import type { StepData } from '../editor-changes.ts';
import type { StepEditor } from '../useStepEditor.ts';
import { useSandboxAddresses } from '../useSandboxAddresses.ts';
import { SelectField, Switch, TextField } from './Fields.tsx';
import { PairsField } from './PairsField.tsx';
import { SandboxSuggestions, type SandboxReceiver } from './SandboxSuggestions.tsx';

// Methods that only read; the sandbox's receivers take POST.
const READING_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const METHOD_WORDS: Record<string, string> = {
  GET: 'GET — read something',
  HEAD: 'HEAD — check something exists',
  OPTIONS: 'OPTIONS — ask what is allowed',
  POST: 'POST — create something',
  PUT: 'PUT — replace something',
  PATCH: 'PATCH — change part of something',
  DELETE: 'DELETE — remove something',
};
const METHOD_OPTIONS = HTTP_METHODS.map((method) => ({ value: method, label: METHOD_WORDS[method] ?? method }));

/** A text body, or anything else (an object written in the file) shown as JSON. */
function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  return typeof body === 'string' ? body : JSON.stringify(body, null, 2);
}

export function HttpRequestForm({ step }: { step: StepEditor }) {
  const method = (step.text('request.method') || 'GET').toUpperCase();
  const timeout = step.get('timeoutMs');
  return (
    <>
      <SelectField
        label="Method"
        value={method as (typeof HTTP_METHODS)[number]}
        options={METHOD_OPTIONS}
        onChange={(value) => step.set('request.method', value)}
        hint="Anything but GET, HEAD and OPTIONS changes something, so it counts as a side effect unless you say otherwise."
        problems={step.problemsAt('request.method')}
      />
      <TextField label="URL" value={step.text('request.url')} onChange={(value) => step.set('request.url', value)} mono picker placeholder="https://api.example.com/invoices" problems={step.problemsAt('request.url')}>
        <SandboxSuggestions field="URL" onPick={(receiver) => step.update((data) => withReceiver(data, receiver), 'request.url')} />
      </TextField>
      <PairsField
        legend="Headers"
        value={step.get('request.headers')}
        onChange={(value) => step.set('request.headers', value)}
        nameLabel="Header name"
        valueLabel="Header value"
        namePlaceholder="content-type"
        valuePlaceholder="application/json"
        addLabel="Add a header"
        secrets
        problems={step.problemsAt('request.headers')}
      />
      {method !== 'GET' && method !== 'HEAD' && (
        <TextField
          label="Body"
          value={bodyText(step.get('request.body'))}
          onChange={(value) => step.set('request.body', textOrUndefined(value))}
          multiline={6}
          mono
          picker
          placeholder={'{"order": "{{ trigger.body.order.id }}"}'}
          hint="What to send, usually JSON. Insert fields where values should go."
          problems={step.problemsAt('request.body')}
        />
      )}
      <TextField
        label="Give up waiting after (seconds)"
        type="number"
        value={typeof timeout === 'number' ? String(timeout / 1000) : ''}
        onChange={(value) => step.set('timeoutMs', value === '' ? undefined : Math.max(1, Math.round(Number(value) * 1000)))}
        placeholder="Default"
        problems={step.problemsAt('timeoutMs')}
      />
    </>
  );
}

/** A sandbox receiver as the request's address: sent with POST, and its key header named when it honours one. */
function withReceiver(data: StepData, receiver: SandboxReceiver): StepData {
  const request = (typeof data.request === 'object' && data.request !== null ? data.request : {}) as Record<string, unknown>;
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
  const next: StepData = { ...data, request: { ...request, url: receiver.url, method: READING_METHODS.has(method) ? 'POST' : method } };
  if (receiver.keyHeader && !data.receiverKeyHeader) next.receiverKeyHeader = receiver.keyHeader;
  return next;
}

/** Recipients may be a list in a flow file; the form shows them as one line. */
function addresses(value: unknown): string {
  return Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : '';
}

export function EmailForm({ step }: { step: StepEditor }) {
  const host = step.text('smtp.host');
  const port = step.get('smtp.port');
  const sandboxSmtp = useSandboxAddresses()?.smtp;
  const sandbox = sandboxSmtp ? host === sandboxSmtp.host && String(port) === String(sandboxSmtp.port) : false;
  return (
    <>
      <TextField label="To" value={addresses(step.get('to'))} onChange={(value) => step.set('to', value)} picker placeholder="{{ trigger.body.order.customer.email }}" problems={step.problemsAt('to')} />
      <TextField label="From" value={step.text('from')} onChange={(value) => step.set('from', value)} placeholder="Shop <shop@example.com>" problems={step.problemsAt('from')} />
      <TextField label="Cc" value={addresses(step.get('cc'))} onChange={(value) => step.set('cc', textOrUndefined(value))} picker placeholder="Optional" problems={step.problemsAt('cc')} />
      <TextField label="Subject" value={step.text('subject')} onChange={(value) => step.set('subject', value)} picker placeholder="Your receipt for order {{ trigger.body.order.id }}" problems={step.problemsAt('subject')} />
      <TextField label="Message" value={step.text('text')} onChange={(value) => step.set('text', textOrUndefined(value))} multiline={6} picker problems={step.problemsAt('text')} />
      <details className="advanced" open={host === ''}>
        <summary>Mail server {host && <span className="muted">— {sandbox ? 'Onceflow’s test mail server' : `${host}:${String(port ?? '')}`}</span>}</summary>
        {sandbox && <p className="field__hint">Onceflow’s test mail server keeps every email so you can try the flow safely. Enter your own mail server to send for real.</p>}
        {sandboxSmtp && !sandbox && (
          <button type="button" className="link-button" onClick={() => step.update((data) => ({ ...data, smtp: { ...(data.smtp as object | undefined), host: sandboxSmtp.host, port: sandboxSmtp.port, secure: false } }), 'smtp')}>
            Use Onceflow’s test mail server ({sandboxSmtp.host}:{sandboxSmtp.port})
          </button>
        )}
        <TextField label="Mail server (SMTP host)" value={host} onChange={(value) => step.set('smtp.host', value)} mono placeholder="smtp.example.com" problems={step.problemsAt('smtp.host')} />
        <TextField
          label="Port"
          value={port === undefined ? '' : String(port)}
          onChange={(value) => step.set('smtp.port', /^\d+$/.test(value) ? Number(value) : textOrUndefined(value))}
          mono
          placeholder="587"
          problems={step.problemsAt('smtp.port')}
        />
        <Switch label="Use an encrypted connection from the start (TLS)" checked={step.get('smtp.secure') === true} onChange={(checked) => step.set('smtp.secure', checked)} description="Usually on for port 465 and off for 587 and 25." />
        <TextField label="User name" value={step.text('smtp.user')} onChange={(value) => step.set('smtp.user', textOrUndefined(value))} problems={step.problemsAt('smtp.user')} />
        <TextField
          label="Password"
          value={step.text('smtp.password')}
          onChange={(value) => step.set('smtp.password', textOrUndefined(value))}
          mono
          placeholder="{{ secrets.SMTP_PASSWORD }}"
          secrets
          hint="Name a stored secret rather than typing the password here."
          problems={step.problemsAt('smtp.password')}
        />
      </details>
    </>
  );
}

export function MessageForm({ step }: { step: StepEditor }) {
  return (
    <>
      <TextField
        label="Channel webhook URL"
        value={step.text('url')}
        onChange={(value) => step.set('url', value)}
        mono
        placeholder="https://hooks.slack.com/services/…"
        hint="The incoming-webhook address your chat tool gives for a channel."
        secrets
        problems={step.problemsAt('url')}
      >
        <SandboxSuggestions field="Channel webhook URL" only="chat" onPick={(receiver) => step.set('url', receiver.url)} />
      </TextField>
      <TextField label="Message" value={step.text('text')} onChange={(value) => step.set('text', value)} multiline={4} picker problems={step.problemsAt('text')} />
    </>
  );
}

