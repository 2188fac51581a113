/**
 * Every setting Onceflow reads from the environment, validated once at start.
 * The README's table of variables mirrors this file.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { DURATION_HINT, isDuration, parseDuration } from '../core/duration.ts';
import { UserError } from './engine/errors.ts';

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value === '1' || value === 'true'));

/** A length of time above zero: a key or a run kept for no time at all protects nothing. */
const isLength = (text: string) => isDuration(text) && parseDuration(text) > 0;
const duration = z.string().trim().refine(isLength, { message: `write ${DURATION_HINT}` });

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  ONCEFLOW_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().optional(),
  ONCEFLOW_ADMIN_PASSWORD: z.string().optional(),
  /** A bearer token that lets a scraper read /metrics without logging in (at least 16 characters). */
  ONCEFLOW_METRICS_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .refine((value) => value === undefined || value.length >= 16, { message: 'use at least 16 characters, for example from `openssl rand -hex 24`' }),
  ONCEFLOW_SECRET_KEY: z.string().optional(),
  ONCEFLOW_SANDBOX: flag,
  /** The sandbox's SMTP receiver (0 picks a free port). */
  ONCEFLOW_SANDBOX_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  ONCEFLOW_HTTP_ALLOW: z.string().optional(),
  /** The addresses people and senders use to reach this server, comma-separated (a DNS name, a proxy). */
  ONCEFLOW_PUBLIC_URL: z
    .string()
    .optional()
    .refine((value) => (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean).every((entry) => URL.canParse(entry) && /^https?:/.test(entry)), {
      message: 'give full addresses such as https://onceflow.example.com, separated by commas',
    }),
  /**
   * Runs one worker executes at once (default: 128). Every webhook delivery being written
   * holds one of these places too (it may start a run), so the default leaves room for many
   * senders at once: with 32, deliveries from 32 senders took every place for new runs and
   * most runs took the queue and a lease instead of starting at intake
   * (engine/ARCHITECTURE.md, "A new run started at intake").
   */
  ONCEFLOW_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(128),
  /** Run and claim lease length; a dead worker's work is picked up after this (default: 30 s). */
  ONCEFLOW_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How often an idle worker polls when nothing wakes it (default: 250 ms). */
  ONCEFLOW_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(250),
  /** How long a side-effect step's key is kept when the step names no keyTtl (default: 30 days). */
  ONCEFLOW_KEY_TTL: duration.default('30d'),
  /** Ended runs (with their timelines) older than this are deleted in the background; off when unset or "off". */
  ONCEFLOW_RETENTION: z
    .string()
    .optional()
    .transform((value) => (value === undefined || ['', 'off'].includes(value.trim()) ? undefined : value.trim()))
    .refine((value) => value === undefined || isLength(value), { message: `write ${DURATION_HINT}, or off` }),
  ONCEFLOW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  /** Test-only crash point, read once at start; does nothing when unset. */
  ONCEFLOW_CRASH_AT: z.string().optional(),
});

export type Env = z.infer<typeof schema> & { dataDir: string; databaseUrl: string };

export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(`The setting ${issue?.path.join('.')} is not valid: ${issue?.message}.`);
  }
  const dataDir = resolve(parsed.data.ONCEFLOW_DATA_DIR);
  const databaseUrl = parsed.data.DATABASE_URL?.trim() || `file:${resolve(dataDir, 'onceflow.db')}`;
  return { ...parsed.data, dataDir, databaseUrl };
}
