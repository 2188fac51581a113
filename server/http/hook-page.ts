/**
 * What a webhook address answers to anything but POST. Opening it in a browser sends a GET,
 * which is not a delivery, and a sender may be set to PUT by mistake: a bare "Not found"
 * there reads as a wrong address, so a real address says it is right and waits for POST
 * (405, Allow: POST), and an unknown one says so in plain words.
 * Either answer names no flow, step or secret: the address is all the visitor already has.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

interface HookPage {
  status: 404 | 405;
  title: string;
  /** Sentences for a person; the JSON answer is the same text. */
  lines: string[];
}

/** A real address asked with another method than POST: GET and HEAD from a browser, or a sender set to PUT, PATCH or DELETE. */
function rightAddress(method: string): HookPage {
  const sent = method === 'GET' || method === 'HEAD'
    ? 'Opening it in a browser sends a GET, which starts nothing.'
    : `This request was sent with ${method}, which starts nothing: set the sender to POST.`;
  return {
    status: 405,
    title: 'This webhook address is right',
    lines: [
      'This is a Onceflow webhook address, and it is the right one.',
      `It only takes deliveries sent with POST, as JSON or a form, by the service that calls it (a shop, a payment provider, a form tool). ${sent}`,
      'Give this address to the sender, or try it with: curl -X POST -H "content-type: application/json" -d \'{"id":"test-1"}\' followed by this address.',
    ],
  };
}

const UNKNOWN_ADDRESS: HookPage = {
  status: 404,
  title: 'No webhook has this address',
  lines: [
    'No webhook has this address. Check it against the address shown on the webhook trigger in the editor, or printed by `onceflow import <file> --json`.',
    'A webhook gets its address when its flow is published; a flow that was deleted, or a trigger that was removed, no longer has one.',
  ],
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function html(page: HookPage): string {
  const paragraphs = page.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Onceflow</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a;overflow-wrap:anywhere}</style>
</head>
<body>
<main>
<h1>${escapeHtml(page.title)}</h1>
${paragraphs}
</main>
</body>
</html>
`;
}

/** Browsers ask for HTML first; programs (curl, fetch, monitors) get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

export function sendHookPage(request: FastifyRequest, reply: FastifyReply, isWebhook: boolean) {
  const page = isWebhook ? rightAddress(request.method) : UNKNOWN_ADDRESS;
  reply.code(page.status).header('cache-control', 'no-store');
  if (isWebhook) reply.header('allow', 'POST');
  if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(html(page));
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ error: page.lines.join(' '), expects: isWebhook ? 'POST' : undefined }));
}
