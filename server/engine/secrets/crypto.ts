/**
 * Encryption at rest for stored secrets (DESIGN.md §10): AES-256-GCM with a fresh 12-byte
 * iv per value, so the database alone never reveals a secret. The key comes from
 * ONCEFLOW_SECRET_KEY or, when that is unset, from `<dataDir>/secret.key`, created on first
 * start and readable by its owner only. Losing the key loses every stored secret; changing
 * it makes them unreadable until they are set again.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EncryptedValue } from '../../store/types.ts';
import { UserError } from '../errors.ts';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_FILE_NAME = 'secret.key';

const MAKE_KEY = 'Create one with `openssl rand -base64 32`.';

export function loadSecretKey(options: { envKey?: string; dataDir: string }): Buffer {
  const envKey = options.envKey?.trim();
  if (envKey) {
    const key = parseKey(envKey);
    if (!key) {
      throw new UserError(`ONCEFLOW_SECRET_KEY is not a valid key: it must be 32 random bytes written as base64 (44 characters) or as 64 hexadecimal characters. ${MAKE_KEY}`);
    }
    return key;
  }
  return readOrCreateKeyFile(join(options.dataDir, KEY_FILE_NAME));
}

/** 64 hex characters, or base64 (standard or URL-safe) of exactly 32 bytes. */
function parseKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

function readOrCreateKeyFile(path: string): Buffer {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw keyFileError(path, error);
    createKeyFile(path);
    mode = statSync(path).mode;
  }
  // POSIX permission bits mean nothing on Windows; there the data folder's ACL protects it.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new UserError(
      `The key file ${path} can be read by other users of this machine (permissions ${(mode & 0o777).toString(8)}); run \`chmod 600 ${path}\` and start again.`,
    );
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw keyFileError(path, error);
  }
  const key = parseKey(text);
  if (!key) {
    throw new UserError(`The key file ${path} does not hold a valid key (32 bytes as base64). Restore it from a backup; without it, stored secrets cannot be read.`);
  }
  return key;
}

/**
 * Writes a new key beside the final name and links it into place: the link fails when
 * another process (a worker starting at the same time) created the file first, and nobody
 * ever reads a half-written key.
 */
function createKeyFile(path: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(temporary, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw keyFileError(path, error);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // Already gone, or never written; nothing to clean up.
    }
  }
}

function keyFileError(path: string, cause: unknown): UserError {
  const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
  return new UserError(`The key file ${path} cannot be read or created (${reason}); check the data folder's permissions or set ONCEFLOW_SECRET_KEY.`, { cause });
}

export function encrypt(key: Buffer, plaintext: string): EncryptedValue {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

/** The GCM tag makes a wrong key (or an altered row) fail here rather than yield garbage. */
export function decrypt(key: Buffer, row: EncryptedValue & { name: string }): string {
  try {
    const iv = Buffer.from(row.iv, 'base64');
    const tag = Buffer.from(row.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('iv or tag has the wrong length');
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(row.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new UserError(
      `Secret ${row.name} cannot be decrypted with this server's key; ONCEFLOW_SECRET_KEY or secret.key changed. Restore the previous key, or set the secret again.`,
      { cause },
    );
  }
}
