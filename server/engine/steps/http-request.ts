/**
 * http.request: one HTTP call. How an answer is classified decides whether a retry is
 * safe: nothing sent → not done (or refused, when trying again cannot help: an address
 * the network policy refuses, a request that cannot be written); 408/429 → not done; other
 * 4xx → refused; a timeout after sending, a reset or a 5xx → ambiguous (the receiver may
 * have acted). Every failure comes back as an outcome, never as a thrown error, so the
 * step protocol settles the claim at once.
 *
 * The key travels in `receiverKeyHeader`, in the form described in http-headers.ts.
 */
import type { TypedStep } from '../flow/planned-step.ts';
import { HttpFailure, sendHttp, type HttpResponse } from './http-client.ts';
import { checkHeaders, keyHeaderValue } from './http-headers.ts';
import type { Renderer, StepIO, StepKind, StepOutcome } from './types.ts';

export interface HttpAction {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  keyHeader: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_STORED_BODY = 64 * 1024;

/** The header that carries the key to the receiver, when one is named (`receiverKeyHeader`). */
export function receiverKeyHeader(step: TypedStep<'http.request' | 'message.post'>): string | undefined {
  return step.data.receiverKeyHeader || undefined;
}

export function renderHttpAction(step: TypedStep<'http.request'>, render: Renderer): HttpAction {
  const { request } = step.data;
  const rawBody = request.body;
  const body =
    rawBody === undefined || rawBody === null
      ? undefined
      : typeof rawBody === 'string'
        ? render.text(rawBody)
        : JSON.stringify(render.deep(rawBody));
  const headers = (render.deep(request.headers ?? {}) ?? {}) as Record<string, string>;
  if (body !== undefined && typeof rawBody !== 'string' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const keyHeader = receiverKeyHeader(step);
  checkHeaders(headers, keyHeader);
  return {
    method: render.text(request.method).toUpperCase(),
    url: render.text(request.url),
    headers,
    body,
    timeoutMs: step.data.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    keyHeader,
  };
}

export function parseUrl(text: string): URL | StepOutcome {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { kind: 'failed', message: `The address "${text}" is not a web address (it must start with http:// or https://).` };
    }
    return url;
  } catch {
    return { kind: 'failed', message: `The address "${text}" is not a valid web address.` };
  }
}

function parseBody(response: HttpResponse): unknown {
  const text = response.body;
  const stored = text.length > MAX_STORED_BODY ? `${text.slice(0, MAX_STORED_BODY)}…` : text;
  if (String(response.headers['content-type'] ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return stored;
    }
  }
  return stored;
}

export async function performHttp(action: HttpAction, io: StepIO): Promise<StepOutcome> {
  const url = parseUrl(action.url);
  if (!(url instanceof URL)) return url;
  const headers = { ...action.headers };
  let sentKeyHeader: { name: string; value: string } | undefined;
  if (action.keyHeader && io.key !== undefined) {
    const value = keyHeaderValue(io.key);
    headers[action.keyHeader] = value;
    if (value !== io.key) sentKeyHeader = { name: action.keyHeader, value };
  }
  let response: HttpResponse;
  try {
    response = await sendHttp(
      {
        method: action.method,
        url,
        headers,
        body: action.method === 'GET' || action.method === 'HEAD' ? undefined : action.body,
        timeoutMs: action.timeoutMs,
        signal: io.signal,
      },
      io.services.network,
    );
  } catch (error) {
    const failure = error instanceof HttpFailure ? error : new HttpFailure(String(error), 'maybe_sent', 'EUNKNOWN');
    if (failure.permanent) return { kind: 'failed', message: failure.message };
    return failure.reach === 'not_sent'
      ? { kind: 'not_done', message: `The receiver at ${action.url} could not be reached (${failure.message}); nothing was sent.` }
      : { kind: 'ambiguous', message: `The call to ${action.url} ended without an answer (${failure.message}); the receiver may or may not have acted.` };
  }
  if (io.services.mask) response = { ...response, body: io.services.mask(response.body) };
  const body = parseBody(response);
  const answer = { status: response.status, contentType: response.headers['content-type'] ?? null, body, ...(sentKeyHeader ? { sentKeyHeader } : {}) };
  if (response.status >= 200 && response.status < 300) return { kind: 'succeeded', output: answer };
  const summary = typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
  if (response.status === 408 || response.status === 429) {
    const retryAfter = Number(response.headers['retry-after']);
    return {
      kind: 'not_done',
      message: `The receiver asked to try again later (${response.status}).`,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      response: answer,
    };
  }
  if (response.status >= 300 && response.status < 400) {
    return { kind: 'failed', message: `The receiver answered with a redirect (${response.status}) to ${response.headers.location ?? 'another address'}; use that address in the step.`, response: answer };
  }
  if (response.status >= 400 && response.status < 500) {
    return { kind: 'failed', message: `The receiver refused the request (${response.status}): ${summary}`, response: answer };
  }
  return { kind: 'ambiguous', message: `The receiver failed while handling the request (${response.status}): ${summary}`, response: answer };
}

export const httpRequestStep: StepKind<'http.request', HttpAction> = {
  type: 'http.request',
  prepare: renderHttpAction,
  describe: (action) => ({ method: action.method, url: action.url, body: action.body ?? null }),
  execute: performHttp,
  honoursKey: (step) => receiverKeyHeader(step) !== undefined,
};
