/**
 * Where the sandbox's stand-in receivers answer, in one list: the editor offers these
 * addresses as suggestions, the start-up line prints them, `GET /sandbox` lists them, and
 * a test holds the README to them. A path here must be a route the sandbox serves
 * (directory.test.ts posts to each one).
 */
import type { ReceiverName } from './ledger.ts';

export interface SandboxAddress {
  receiver: ReceiverName;
  /** Under the server's own address, e.g. `/sandbox/payments/charges`. */
  path: string;
  /** What a person picks from, e.g. "Sandbox: payments (charges) — honours keys". */
  label: string;
  /** The header that carries the key, when the receiver honours one. */
  keyHeader?: string;
}

export const SANDBOX_ADDRESSES: readonly SandboxAddress[] = [
  { receiver: 'payments', path: '/sandbox/payments/charges', label: 'Sandbox: payments (charges) — honours keys', keyHeader: 'Idempotency-Key' },
  { receiver: 'payments', path: '/sandbox/payments/invoices', label: 'Sandbox: payments (invoices) — honours keys', keyHeader: 'Idempotency-Key' },
  { receiver: 'crm', path: '/sandbox/crm/contacts', label: 'Sandbox: CRM (contacts) — honours no keys' },
  { receiver: 'crm', path: '/sandbox/crm/records', label: 'Sandbox: CRM (records) — honours no keys' },
  { receiver: 'chat', path: '/sandbox/chat/messages', label: 'Sandbox: chat messages — honours no keys' },
];

/** The CRM takes any collection name in lower-case letters (`/sandbox/crm/invoices`, `/sandbox/crm/deals`). */
export const SANDBOX_CRM_COLLECTION = /^\/sandbox\/crm\/[a-z][a-z0-9_-]{0,39}$/;

export interface SandboxListening {
  /** The server's own address, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The mail server's address, or undefined when it did not start. */
  smtp: { host: string; port: number } | undefined;
}

/** One line for the start-up output: where each receiver answers, and the mail server. */
export function sandboxStartupLine(sandbox: SandboxListening | undefined): string {
  if (!sandbox) return 'Sandbox: off (it is on when Onceflow listens on 127.0.0.1, or with ONCEFLOW_SANDBOX=1).';
  const http = SANDBOX_ADDRESSES.map((address) => `${sandbox.baseUrl}${address.path}`).join(', ');
  const smtp = sandbox.smtp ? `SMTP at ${sandbox.smtp.host}:${sandbox.smtp.port}` : 'SMTP not started (see the warning above)';
  return `Sandbox: HTTP receivers at ${http}; ${smtp}.`;
}
