/**
 * The process's logger. Every line passes the database's masker on its way out, so a
 * secret's value (in any of its encoded forms) never reaches a log, whatever was logged.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Masker } from './engine/secrets/masker.ts';

export function createLogger(level: string, masker: Masker, destination?: DestinationStream): Logger {
  const options = { level, hooks: { streamWrite: (line: string) => masker.text(line) } };
  return destination ? pino(options, destination) : pino(options);
}
