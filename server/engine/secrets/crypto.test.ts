/**
 * The secret key and AES-256-GCM: where the key comes from, how its file is protected,
 * and what a wrong key looks like to a person.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../errors.ts';
import { decrypt, encrypt, loadSecretKey } from './crypto.ts';

const posix = process.platform !== 'win32';
const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-key-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadSecretKey', () => {
  it('creates secret.key with mode 0600 when missing, and reuses it afterwards', () => {
    const dir = join(dataDir(), 'nested', 'data');
    const first = loadSecretKey({ dataDir: dir });
    expect(first).toHaveLength(32);
    const file = join(dir, 'secret.key');
    if (posix) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(loadSecretKey({ dataDir: dir }).equals(first)).toBe(true);
  });

  it('gives every data folder its own key', () => {
    expect(loadSecretKey({ dataDir: dataDir() }).equals(loadSecretKey({ dataDir: dataDir() }))).toBe(false);
  });

  it.runIf(posix)('refuses a key file that other users can read', () => {
    const dir = dataDir();
    loadSecretKey({ dataDir: dir });
    const file = join(dir, 'secret.key');
    for (const mode of [0o640, 0o604, 0o644]) {
      chmodSync(file, mode);
      expect(() => loadSecretKey({ dataDir: dir })).toThrow(`can be read by other users of this machine (permissions ${mode.toString(8)}); run \`chmod 600 ${file}\``);
    }
  });

  it('refuses a damaged key file in plain words', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'secret.key'), 'not a key\n', { mode: 0o600 });
    expect(() => loadSecretKey({ dataDir: dir })).toThrow(/does not hold a valid key/);
  });

  it('prefers ONCEFLOW_SECRET_KEY, as base64 or as hex, and writes no file then', () => {
    const raw = randomBytes(32);
    const dir = dataDir();
    expect(loadSecretKey({ envKey: raw.toString('base64'), dataDir: dir }).equals(raw)).toBe(true);
    expect(loadSecretKey({ envKey: raw.toString('hex'), dataDir: dir }).equals(raw)).toBe(true);
    expect(loadSecretKey({ envKey: raw.toString('base64url'), dataDir: dir }).equals(raw)).toBe(true);
    expect(() => statSync(join(dir, 'secret.key'))).toThrow();
  });

  it('refuses a bad ONCEFLOW_SECRET_KEY with a clear error', () => {
    for (const envKey of ['hunter2', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), 'z'.repeat(64), randomBytes(31).toString('hex')]) {
      let error: unknown;
      try {
        loadSecretKey({ envKey, dataDir: dataDir() });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(/^ONCEFLOW_SECRET_KEY is not a valid key: it must be 32 random bytes/);
      expect((error as Error).message).not.toContain(envKey);
    }
  });

  it('falls back to the key file when ONCEFLOW_SECRET_KEY is empty', () => {
    const dir = dataDir();
    const key = loadSecretKey({ envKey: '', dataDir: dir });
    expect(loadSecretKey({ dataDir: dir }).equals(key)).toBe(true);
  });
});

describe('encrypt and decrypt', () => {
  const key = randomBytes(32);

  it('round-trips text, with a fresh 12-byte iv every time', () => {
    const value = 'p4ss wörd ✓ '.repeat(20);
    const first = encrypt(key, value);
    const second = encrypt(key, value);
    expect(Buffer.from(first.iv, 'base64')).toHaveLength(12);
    expect(first.iv).not.toBe(second.iv);
    expect(first.ciphertext).not.toBe(second.ciphertext);
    expect(decrypt(key, { name: 'API_TOKEN', ...first })).toBe(value);
    expect(decrypt(key, { name: 'API_TOKEN', ...second })).toBe(value);
  });

  it('refuses a wrong key, naming the secret and what changed', () => {
    const row = { name: 'SMTP_PASSWORD', ...encrypt(key, 'secret') };
    expect(() => decrypt(randomBytes(32), row)).toThrow(
      "Secret SMTP_PASSWORD cannot be decrypted with this server's key; ONCEFLOW_SECRET_KEY or secret.key changed.",
    );
  });

  it('refuses a row that was altered', () => {
    const row = { name: 'API_TOKEN', ...encrypt(key, 'secret value') };
    const flipped = Buffer.from(row.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => decrypt(key, { ...row, ciphertext: flipped.toString('base64') })).toThrow(/cannot be decrypted/);
    expect(() => decrypt(key, { ...row, tag: '' })).toThrow(/cannot be decrypted/);
  });
});
