/**
 * http.request: one HTTP call. How an answer is classified decides whether a retry is
 * safe: nothing sent → not done; 408/429 → not done; other 4xx → refused; a timeout after
 * sending, a reset or a 5xx → ambiguous (the receiver may have acted).
 */
import type { FlowNode } from '../flow/document.ts';
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
const NOTHING_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

export function renderHttpAction(request: Record<string, unknown>, node: FlowNode, render: Renderer): HttpAction {
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
  const keyHeader = typeof node.data.receiverKeyHeader === 'string' && node.data.receiverKeyHeader ? node.data.receiverKeyHeader : undefined;
  return {
    method: render.text(String(request.method ?? 'GET')).toUpperCase(),
    url: render.text(String(request.url ?? '')),
    headers,
    body,
    timeoutMs: typeof node.data.timeoutMs === 'number' ? node.data.timeoutMs : DEFAULT_TIMEOUT_MS,
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

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  const stored = text.length > MAX_STORED_BODY ? `${text.slice(0, MAX_STORED_BODY)}…` : text;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
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
  try {
    await io.services.checkUrl(url);
  } catch (error) {
    return { kind: 'failed', message: (error as Error).message };
  }
  const headers = { ...action.headers };
  if (action.keyHeader && io.key !== undefined) headers[action.keyHeader] = io.key;
  let response: Response;
  try {
    response = await fetch(url, {
      method: action.method,
      headers,
      body: action.method === 'GET' || action.method === 'HEAD' ? undefined : action.body,
      signal: AbortSignal.any([io.signal, AbortSignal.timeout(action.timeoutMs)]),
      redirect: 'follow',
    });
  } catch (error) {
    return classifyNetworkError(error, action);
  }
  let body: unknown;
  try {
    body = await readBody(response);
  } catch (error) {
    return { kind: 'ambiguous', message: `The receiver started answering (${response.status}) but the answer was cut off: ${(error as Error).message}.` };
  }
  const answer = { status: response.status, contentType: response.headers.get('content-type'), body };
  if (response.ok) return { kind: 'succeeded', output: answer };
  const summary = typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
  if (response.status === 408 || response.status === 429) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      kind: 'not_done',
      message: `The receiver asked to try again later (${response.status}).`,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      response: answer,
    };
  }
  if (response.status >= 400 && response.status < 500) {
    return { kind: 'failed', message: `The receiver refused the request (${response.status}): ${summary}`, response: answer };
  }
  return { kind: 'ambiguous', message: `The receiver failed while handling the request (${response.status}): ${summary}`, response: answer };
}

function classifyNetworkError(error: unknown, action: HttpAction): StepOutcome {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code;
  if (err.name === 'TimeoutError') {
    return { kind: 'ambiguous', message: `The receiver did not answer within ${Math.round(action.timeoutMs / 100) / 10} s; it may or may not have acted.` };
  }
  if (err.name === 'AbortError') return { kind: 'ambiguous', message: 'The call was interrupted before the receiver answered.' };
  if (code && NOTHING_SENT.has(code)) {
    return { kind: 'not_done', message: `The receiver at ${action.url} could not be reached (${code}); nothing was sent.` };
  }
  return {
    kind: 'ambiguous',
    message: `The connection to ${action.url} broke before an answer arrived (${code ?? err.cause?.message ?? err.message}); the receiver may or may not have acted.`,
  };
}

export const httpRequestStep: StepKind<HttpAction> = {
  type: 'http.request',
  prepare: (node, render) => renderHttpAction((node.data.request ?? {}) as Record<string, unknown>, node, render),
  describe: (action) => ({ method: action.method, url: action.url, body: action.body ?? null }),
  execute: performHttp,
  honoursKey: (node) => typeof node.data.receiverKeyHeader === 'string' && node.data.receiverKeyHeader.length > 0,
};
