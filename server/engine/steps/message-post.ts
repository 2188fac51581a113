/**
 * message.post: a chat message to a Slack-compatible incoming webhook (POST `{ "text" }`).
 * It is an HTTP call underneath, so its answers are classified exactly like http.request:
 * nothing sent or 408/429 → not done; other 4xx (Slack's invalid_payload,
 * channel_not_found …) → refused; a timeout after sending, a reset or a 5xx → ambiguous.
 * Chat webhooks rarely honour keys; when `receiverKeyHeader` is set the key is sent in
 * that header (in the form described in http-headers.ts) and the receiver is trusted to
 * deduplicate. The address is checked by the same network policy as http.request.
 */
import { checkHeaders } from './http-headers.ts';
import { performHttp, receiverKeyHeader, type HttpAction } from './http-request.ts';
import type { StepKind } from './types.ts';

export interface MessageAction {
  url: string;
  text: string;
  timeoutMs: number;
  keyHeader: string | undefined;
}

// (default: 30 s, like http.request)
const DEFAULT_TIMEOUT_MS = 30_000;

export function toHttpAction(message: MessageAction): HttpAction {
  return {
    method: 'POST',
    url: message.url,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: message.text }),
    timeoutMs: message.timeoutMs,
    keyHeader: message.keyHeader,
  };
}

export const messagePostStep: StepKind<'message.post', MessageAction> = {
  type: 'message.post',
  prepare: (step, render) => {
    const keyHeader = receiverKeyHeader(step);
    checkHeaders({}, keyHeader);
    return {
      url: render.text(step.data.url),
      text: render.text(step.data.text),
      timeoutMs: step.data.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      keyHeader,
    };
  },
  describe: (message) => ({ url: message.url, text: message.text }),
  execute: (message, io) => performHttp(toHttpAction(message), io),
  honoursKey: (step) => receiverKeyHeader(step) !== undefined,
};
