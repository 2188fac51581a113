/** The process's logger passes every line through the masker, whatever was logged and how. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMasker } from './engine/secrets/masker.ts';
import { createLogger } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, lines };
}

describe('the logger', () => {
  it('masks a value in messages, fields and errors, at debug level, and keeps each line valid JSON', () => {
    const value = 'pw"with\\quotes&Grüße€';
    const masker = createMasker();
    const { stream, lines } = capture();
    const log = createLogger('debug', masker, stream);
    // Learned after the logger was made: the hook reads the masker's current values.
    masker.remember([value]);
    log.debug({ url: `http://x/?t=${encodeURIComponent(value)}`, body: JSON.stringify({ value }) }, `calling with ${value}`);
    log.error({ err: new Error(`refused ${value}`), basic: Buffer.from(`ann:${value}`).toString('base64') }, 'request failed');
    expect(lines).toHaveLength(2);
    const text = lines.join('');
    for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), Buffer.from(`ann:${value}`).toString('base64')]) {
      expect(text).not.toContain(form);
    }
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(JSON.stringify(entry)).toContain('••••••');
    }
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 20, msg: 'calling with ••••••', url: 'http://x/?t=••••••' });
  });

  it('writes lines unchanged while no secret is known', () => {
    const { stream, lines } = capture();
    createLogger('info', createMasker(), stream).info({ a: 'plain' }, 'hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ a: 'plain', msg: 'hello' });
  });
});
