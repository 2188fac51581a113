/**
 * email.send: one email over SMTP (nodemailer, pooled connections).
 *
 * A mail server does not honour idempotency keys, so what matters is telling apart "the
 * server cannot have the email" from "it may have it":
 * - a reply from the server is its final word: 4xx → not done (try later), 5xx → refused;
 * - no reply, and the message was not yet handed over (refused connection, unknown host,
 *   a drop or timeout before the server said "go ahead" to DATA) → not done;
 * - no reply after the message was handed over (a drop or timeout while waiting for the
 *   final 250) → ambiguous: the server may have queued it.
 * The key travels in an `X-Onceflow-Key` header and shapes the Message-ID, so receivers
 * that deduplicate mail may do so.
 *
 * The mail server's name is resolved once by the network policy, which checks the address;
 * the connection is then made to that very address, with the name kept for TLS, so the
 * address checked is the address connected to. Every failure before the hand-over
 * (a refused address, no such host, a refused connection, a failed TLS handshake, a
 * refused login) comes back as an outcome, never as a thrown error.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { NonRetriableError } from '../errors.ts';
import { AddressRefusedError } from '../network-policy.ts';
import { parseAddress, type ParsedAddress } from '../net/addresses.ts';
import type { TypedStep } from '../flow/planned-step.ts';
import type { Renderer, StepIO, StepKind, StepOutcome } from './types.ts';

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (usually port 465); otherwise STARTTLS when offered. */
  secure: boolean;
  user?: string;
  password?: string;
}

export interface EmailAction {
  smtp: SmtpSettings;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string | undefined;
  html: string | undefined;
  timeoutMs: number;
}

export const KEY_HEADER = 'X-Onceflow-Key';

// (default: 30 s, like http.request) Also the longest silence tolerated from the server.
const DEFAULT_TIMEOUT_MS = 30_000;
// (default: 30 s) An unused pool is closed so no connection lingers on the mail server.
const POOL_IDLE_MS = 30_000;
const POOL_CONNECTIONS = 5;

// ---------------------------------------------------------------------------------------
// Rendering

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  return text === '' ? undefined : text;
}

function toPort(value: unknown): number {
  const port = typeof value === 'number' ? value : Number(String(value ?? '').trim());
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new NonRetriableError(`The mail server port "${String(value ?? '')}" is not a number between 1 and 65535.`);
  }
  return port;
}

function toSecure(value: unknown, port: number): boolean {
  if (typeof value === 'boolean') return value;
  const text = String(value ?? '').trim().toLowerCase();
  if (text === 'true' || text === '1' || text === 'yes') return true;
  if (text === 'false' || text === '0' || text === 'no') return false;
  // Port 465 speaks TLS from the first byte; the others upgrade with STARTTLS.
  return port === 465;
}

/** Splits "a@x.test, \"Doe, Jane\" <j@x.test>" on commas and semicolons outside quotes and <…>. */
export function splitAddresses(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (char === '<' && !quoted) angle = true;
    else if (char === '>' && !quoted) angle = false;
    if ((char === ',' || char === ';') && !quoted && !angle) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

function addresses(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((item) => splitAddresses(String(item)));
}

export function renderEmail({ data }: TypedStep<'email.send'>, render: Renderer): EmailAction {
  // Rendered values may be anything a template gives, so they are checked again here.
  const smtp = (render.deep(data.smtp) ?? {}) as Record<string, unknown>;
  const host = String(smtp.host ?? '').trim();
  if (!host) throw new NonRetriableError('The step has no mail server address (SMTP host).');
  const port = toPort(smtp.port);
  const to = addresses(render.deep(data.to));
  if (to.length === 0) throw new NonRetriableError('The email has no recipient ("to" is empty once filled in).');
  const from = render.text(data.from).trim();
  if (!from) throw new NonRetriableError('The email has no sender ("from" is empty once filled in).');
  return {
    smtp: { host, port, secure: toSecure(smtp.secure, port), user: optionalText(smtp.user), password: optionalText(smtp.password) },
    from,
    to,
    cc: addresses(render.deep(data.cc)),
    subject: render.text(data.subject),
    text: data.text === undefined ? undefined : render.text(data.text),
    html: data.html === undefined ? undefined : render.text(data.html),
    timeoutMs: data.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
}

function serverName(smtp: SmtpSettings): string {
  return `${smtp.host.includes(':') ? `[${smtp.host}]` : smtp.host}:${smtp.port}`;
}

/**
 * The same key and the same email give the same Message-ID, so a receiver that drops
 * repeated Message-IDs drops a repeat; the content is mixed in because keys are unique
 * only within their scope.
 */
export function messageIdFor(key: string, email: Pick<EmailAction, 'from' | 'to' | 'subject'>): string {
  const hash = createHash('sha256').update(JSON.stringify([key, email.from, email.to, email.subject])).digest('hex').slice(0, 32);
  const domain = /@([^\s>@]+)>?\s*$/.exec(email.from)?.[1] ?? 'onceflow.local';
  return `<${hash}.onceflow@${domain}>`;
}

// ---------------------------------------------------------------------------------------
// Classification

interface SmtpErrorFields {
  code?: unknown;
  responseCode?: unknown;
  command?: unknown;
  response?: unknown;
  message?: unknown;
}

function shortReason(error: SmtpErrorFields): string {
  const message = String(error.message ?? error.code ?? 'unknown error');
  if (/ECONNREFUSED/.test(message)) return 'the connection was refused';
  if (error.code === 'EDNS' || /ENOTFOUND|EAI_AGAIN/.test(message)) return 'no such host';
  if (error.code === 'ETIMEDOUT') return 'no answer in time';
  if (/ECONNRESET|closed unexpectedly|connection was closed/i.test(message)) return 'the connection was cut';
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/**
 * What a nodemailer error means for a retry. `handedOver`: the server had said "go ahead"
 * to DATA and the message was being written, so it may have been accepted.
 */
export function classifySmtpError(error: unknown, handedOver: boolean, smtp: SmtpSettings): StepOutcome {
  const fields = (error ?? {}) as SmtpErrorFields;
  const server = serverName(smtp);
  const reply = typeof fields.responseCode === 'number' ? fields.responseCode : undefined;
  const said = String(fields.response ?? reply ?? '').trim().slice(0, 300);
  // After the hand-over, a connection that closed is no answer about the message, even if
  // some earlier line from the server is attached to the error.
  const isAnswer = reply !== undefined && reply >= 400 && !(handedOver && fields.command === 'CONN');
  if (isAnswer && reply < 500) {
    return { kind: 'not_done', message: `The mail server ${server} asked to try again later (${said}); the email was not accepted.`, response: { reply: said } };
  }
  if (isAnswer) {
    if (fields.code === 'EAUTH') {
      return { kind: 'failed', message: `The mail server ${server} did not accept the user name or password (${said}); check the step's SMTP user and password.`, response: { reply: said } };
    }
    return { kind: 'failed', message: `The mail server ${server} refused the email (${said}).`, response: { reply: said } };
  }
  if (reply === undefined && (fields.code === 'EENVELOPE' || fields.code === 'EMESSAGE' || fields.code === 'EAUTH')) {
    // Raised before anything was sent: a malformed address, a missing password …
    return { kind: 'failed', message: `The email could not be sent to ${server}: ${String(fields.message ?? fields.code)}.` };
  }
  if (handedOver) {
    return {
      kind: 'ambiguous',
      message: `The connection to the mail server ${server} ended after the email was handed over and before the server confirmed it (${shortReason(fields)}); it may or may not have been sent.`,
    };
  }
  return { kind: 'not_done', message: `The email could not be handed to the mail server ${server} (${shortReason(fields)}); nothing was sent.` };
}

// ---------------------------------------------------------------------------------------
// Pooled transports

interface SendProgress {
  handedOver: boolean;
}

// Carried in the send options to the stream plugin below (nodemailer copies plain fields).
const PROGRESS_FIELD = 'onceflowProgress';

/**
 * Passes the message through unchanged and notes when the connection first reads it:
 * nodemailer reads the message only once the server has answered DATA with 354.
 */
function handOverGate(input: Readable, progress: SendProgress): Readable {
  const output = new Readable({
    read() {
      progress.handedOver = true;
      input.resume();
    },
  });
  input.on('data', (chunk: Buffer) => {
    if (!output.push(chunk)) input.pause();
  });
  input.once('end', () => output.push(null));
  input.once('error', (error) => output.destroy(error));
  input.pause();
  return output;
}

const noteHandOver: Mail.PluginFunction = (mail, done) => {
  const progress = (mail.data as Record<string, unknown>)[PROGRESS_FIELD] as SendProgress | undefined;
  if (progress) mail.message.processFunc((input) => handOverGate(input, progress));
  done();
};

interface Pool {
  id: string;
  transporter: Transporter<SMTPPool.SentMessageInfo>;
  sending: number;
  idleTimer: NodeJS.Timeout | undefined;
}

const pools = new Map<string, Pool>();

/** `address`: the checked address the pool's connections are made to. */
function poolFor(smtp: SmtpSettings, address: ParsedAddress, timeoutMs: number): Pool {
  // Hashed so the password does not sit in a map key in plain text.
  const id = createHash('sha256').update(JSON.stringify([smtp.host, address.text, smtp.port, smtp.secure, smtp.user ?? null, smtp.password ?? null, timeoutMs])).digest('hex');
  const existing = pools.get(id);
  if (existing) return existing;
  const options: SMTPPool.Options & { maxRequeues: number } = {
    pool: true,
    host: address.text,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user !== undefined ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    maxConnections: POOL_CONNECTIONS,
    maxMessages: 100,
    // Never resend on a closed connection by itself: a resend after the hand-over could
    // deliver twice, and the step protocol decides about retries.
    maxRequeues: 0,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    logger: false,
    // The certificate is checked against the name the person wrote, not the address.
    tls: parseAddress(smtp.host) ? undefined : { servername: smtp.host },
  };
  const transporter = nodemailer.createTransport(options);
  transporter.use('stream', noteHandOver);
  // A failed send reaches its own caller; this only keeps a stray pool error from ending the process.
  transporter.on('error', () => {});
  const pool: Pool = { id, transporter, sending: 0, idleTimer: undefined };
  pools.set(id, pool);
  return pool;
}

function release(pool: Pool): void {
  pool.sending--;
  if (pool.sending > 0) return;
  pool.idleTimer = setTimeout(() => {
    if (pool.sending > 0 || pools.get(pool.id) !== pool) return;
    pools.delete(pool.id);
    pool.transporter.close();
  }, POOL_IDLE_MS);
  pool.idleTimer.unref();
}

async function sendPooled(smtp: SmtpSettings, address: ParsedAddress, timeoutMs: number, message: SendMailOptions): Promise<SMTPPool.SentMessageInfo> {
  const pool = poolFor(smtp, address, timeoutMs);
  clearTimeout(pool.idleTimer);
  pool.sending++;
  try {
    return await pool.transporter.sendMail(message);
  } finally {
    release(pool);
  }
}

/** Closes every pooled connection (process shutdown, tests). */
export function closeEmailTransports(): void {
  for (const pool of pools.values()) {
    clearTimeout(pool.idleTimer);
    pool.transporter.close();
  }
  pools.clear();
}

/** How many pools are open (one per distinct SMTP settings). */
export function openEmailPools(): number {
  return pools.size;
}

// ---------------------------------------------------------------------------------------
// The step kind

function addressText(address: string | Mail.Address): string {
  return typeof address === 'string' ? address : address.address;
}

/** The server's words with secrets hidden before they are shortened into a message. */
function maskReply(error: unknown, io: StepIO): unknown {
  const mask = io.services.mask;
  if (!mask || !error || typeof error !== 'object') return error;
  const fields = error as SmtpErrorFields;
  const hide = (value: unknown) => (typeof value === 'string' ? mask(value) : value);
  return { code: fields.code, responseCode: fields.responseCode, command: fields.command, response: hide(fields.response), message: hide(fields.message) };
}

export async function sendEmail(email: EmailAction, io: StepIO): Promise<StepOutcome> {
  let address: ParsedAddress;
  try {
    address = await io.services.network.resolveHost(email.smtp.host);
  } catch (error) {
    if (error instanceof AddressRefusedError) return { kind: 'failed', message: error.message };
    return classifySmtpError(maskReply({ code: 'EDNS', message: (error as Error).message }, io), false, email.smtp);
  }
  const progress: SendProgress = { handedOver: false };
  const message: SendMailOptions & Record<string, unknown> = {
    from: email.from,
    to: email.to,
    cc: email.cc.length > 0 ? email.cc : undefined,
    subject: email.subject,
    // An email needs a body; an empty text part when neither was given.
    text: email.text ?? (email.html === undefined ? '' : undefined),
    html: email.html,
    headers: io.key !== undefined ? { [KEY_HEADER]: io.key } : {},
    messageId: io.key !== undefined ? messageIdFor(io.key, email) : undefined,
    [PROGRESS_FIELD]: progress,
  };
  let info: SMTPPool.SentMessageInfo;
  try {
    info = await sendPooled(email.smtp, address, email.timeoutMs, message);
  } catch (error) {
    return classifySmtpError(maskReply(error, io), progress.handedOver, email.smtp);
  }
  return {
    kind: 'succeeded',
    output: {
      messageId: info.messageId,
      accepted: info.accepted.map(addressText),
      rejected: info.rejected.map(addressText),
      response: info.response,
    },
  };
}

export const emailSendStep: StepKind<'email.send', EmailAction> = {
  type: 'email.send',
  prepare: renderEmail,
  // What the email is, not how it travels: the password never enters the fingerprint.
  describe: (email) => ({
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    text: email.text ?? null,
    html: email.html ?? null,
  }),
  execute: sendEmail,
  honoursKey: () => false,
};
