/**
 * The sandbox: stand-in receivers served by the app under /sandbox, so people can try
 * flows against something that behaves like the real thing (a payments service that
 * honours keys, a CRM and a chat webhook that do not, a mail server) and then read, in
 * the ledger, exactly how many times each thing happened.
 *
 *   POST /sandbox/payments/charges | /sandbox/payments/invoices   honours Idempotency-Key
 *   POST /sandbox/crm/contacts | /sandbox/crm/records | /crm/…     honours nothing
 *   POST /sandbox/chat/messages  { "text": … }                    Slack-compatible, honours nothing
 *   SMTP on its own port (default: 2525)                          honours nothing
 *   GET  /sandbox                                                 what is where, and the settings
 *   GET  /sandbox/ledger, /sandbox/email/messages                 what arrived
 *
 * Whether it is on is the app's decision; this module only builds and serves it.
 */
import type { FastifyInstance } from 'fastify';
import { openRoutes } from '../http/guard.ts';
import { SANDBOX_ADDRESSES } from './directory.ts';
import { Ledger, RECEIVERS, SandboxSettings, type ReceiverName } from './ledger.ts';
import { PaymentKeys, registerPayments } from './payments.ts';
import { registerSimpleReceivers } from './simple-receivers.ts';
import { startSmtpSandbox, type ReceivedEmail, type SmtpSandbox } from './smtp.ts';

export const DEFAULT_SANDBOX_SMTP_PORT = 2525;

export interface SandboxOptions {
  /** 0 picks a free port (default: 2525). */
  smtpPort?: number;
  /** (default: 127.0.0.1) */
  smtpHost?: string;
  /** For tests that want failures on cue (default: Math.random). */
  random?: () => number;
  now?: () => number;
}

export interface Sandbox {
  ledger: Ledger;
  settings: SandboxSettings;
  /** Keys the payments receiver remembers. */
  payments: PaymentKeys;
  /** The mail server's address once started, e.g. for a step's SMTP settings. */
  readonly smtp: { host: string; port: number } | undefined;
  /** Starts the mail server; the HTTP receivers live in the app (registerSandbox). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Forgets what arrived (and the keys payments remembers), for one receiver or all. */
  reset(receiver?: ReceiverName): void;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const ledger = new Ledger(options.now);
  const settings = new SandboxSettings(options.random);
  const payments = new PaymentKeys();
  let running: SmtpSandbox | undefined;
  let starting: Promise<void> | undefined;

  return {
    ledger,
    settings,
    payments,
    get smtp() {
      return running ? { host: running.host, port: running.port } : undefined;
    },
    start() {
      starting ??= startSmtpSandbox({
        port: options.smtpPort ?? DEFAULT_SANDBOX_SMTP_PORT,
        host: options.smtpHost,
        ledger,
        settings,
      }).then(
        (smtp) => {
          running = smtp;
        },
        (error: unknown) => {
          starting = undefined;
          throw error;
        },
      );
      return starting;
    },
    async stop() {
      await starting?.catch(() => {});
      const smtp = running;
      running = undefined;
      starting = undefined;
      await smtp?.stop();
    },
    reset(receiver) {
      ledger.reset(receiver);
      if (receiver === undefined || receiver === 'payments') payments.clear();
    },
  };
}

/** The email arrivals as a list people can read: who, what, and which key. */
export function listEmails(sandbox: Sandbox) {
  return sandbox.ledger.entries('email').map((entry) => {
    const email = entry.data as ReceivedEmail;
    return {
      seq: entry.seq,
      at: new Date(entry.at).toISOString(),
      outcome: entry.outcome,
      key: entry.key,
      messageId: entry.reference,
      from: email.from,
      to: email.to,
      subject: email.subject,
      body: email.body,
    };
  });
}

/** Serves the HTTP receivers under /sandbox on the app. */
export async function registerSandbox(app: FastifyInstance, sandbox: Sandbox): Promise<void> {
  await app.register(
    async (scope) => {
      // The receivers take what real services take (JSON, forms, text) whatever parsers
      // the rest of the app uses; a body that is not JSON stays text.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
        const body = String(text);
        const type = String(request.headers['content-type'] ?? '');
        if (body.trim() === '') return done(null, undefined);
        if (type.includes('application/x-www-form-urlencoded')) {
          const form = Object.fromEntries(new URLSearchParams(body));
          // Slack also accepts the message as a form field `payload` holding JSON.
          if (typeof form.payload === 'string') {
            try {
              return done(null, JSON.parse(form.payload));
            } catch {
              return done(null, form);
            }
          }
          return done(null, form);
        }
        try {
          return done(null, JSON.parse(body));
        } catch {
          return done(null, body);
        }
      });

      // The receivers stand in for outside services that steps call without a session;
      // what arrived (the ledger, the mail) stays behind the login like the rest of the app.
      await scope.register(async (receivers) => {
        openRoutes(receivers, 'open');
        registerPayments(receivers, sandbox, sandbox.payments);
        registerSimpleReceivers(receivers, sandbox);
      });

      scope.get('/', async () => ({
        receivers: RECEIVERS.map((name) => ({ name, settings: sandbox.settings.get(name) })),
        smtp: sandbox.smtp ?? null,
        routes: [
          ...SANDBOX_ADDRESSES.map((address) => `POST ${address.path}`), 'POST /sandbox/crm/<collection>',
          'GET /sandbox/ledger', 'GET /sandbox/email/messages',
        ],
      }));
      scope.get('/ledger', async () => ({ receivers: sandbox.ledger.summaries(), entries: sandbox.ledger.entries() }));
      scope.get('/email/messages', async () => ({ messages: listEmails(sandbox) }));
    },
    { prefix: '/sandbox' },
  );
}
