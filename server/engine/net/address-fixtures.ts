/**
 * Addresses and a resolver stub for tests of the network policy and the steps that use
 * it: a name resolves to whatever the test says, so no test needs (or sends) outside traffic.
 */
import type { Resolver } from '../network-policy.ts';

/** Every spelling of the cloud metadata address that a resolver or a socket accepts. */
export const METADATA_SPELLINGS = [
  '169.254.169.254',
  '2852039166',
  '0251.0376.0251.0376',
  '0xa9fea9fe',
  '0xa9.0xfe.0xa9.0xfe',
  '169.254.43518',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '0:0:0:0:0:ffff:169.254.169.254',
  '0000:0000:0000:0000:0000:ffff:a9fe:a9fe',
  '::169.254.169.254',
  '::a9fe:a9fe',
  '::ffff:0:a9fe:a9fe',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::169.254.169.254',
  '64:ff9b:1:a9fe:a9:fe00::',
  '2002:a9fe:a9fe::1',
  '[::ffff:a9fe:a9fe]',
  'fe80::1',
  'fe80::a9fe:a9fe%eth0',
  'FEBF::1',
];

/** Resolves only the names given; any other name is unknown (ENOTFOUND). */
export const stubResolver = (answers: Record<string, string[]>): Resolver => async (name) => {
  const found = answers[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};
