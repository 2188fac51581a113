/**
 * The network policy on its own: every spelling of an address is judged by the bytes it
 * stands for, link-local is refused always, private ranges when exposed, and the allowlist
 * opens what it names. Names resolve through a stub, so nothing leaves this machine.
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { classifyAddress, parseAddress } from './net/addresses.ts';
import { METADATA_SPELLINGS, stubResolver } from './net/address-fixtures.ts';
import { AddressRefusedError, createNetworkPolicy } from './network-policy.ts';

function lookupOnce(policy: ReturnType<typeof createNetworkPolicy>, name: string, all: boolean) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
    policy.lookup(name, { all }, (error, address, family) => resolve({ error, address, family })),
  );
}

describe('reading addresses', () => {
  it.each(METADATA_SPELLINGS)('reads %s as link-local', (spelling) => {
    const parsed = parseAddress(spelling);
    expect(parsed).toBeDefined();
    expect(classifyAddress(parsed!.address)).toBe('link-local');
  });

  it('keeps the exact bytes to connect to: "::a.b.c.d" stays IPv4-compatible, not mapped', () => {
    expect(parseAddress('::169.254.169.254')?.text).toBe('::a9fe:a9fe');
    expect(parseAddress('::ffff:169.254.169.254')?.text).toBe('::ffff:a9fe:a9fe');
    expect(parseAddress('0xa9fea9fe')?.text).toBe('169.254.169.254');
    expect(parseAddress('example.com')).toBeUndefined();
    expect(parseAddress('1.2.3.4.example.com')).toBeUndefined();
  });

  it('sorts the other ranges, in every spelling', () => {
    const kind = (text: string) => classifyAddress(parseAddress(text)!.address);
    expect(['127.0.0.1', '127.1', '2130706433', '0x7f000001', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1'].map(kind)).toEqual(Array(8).fill('loopback'));
    expect(['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fd00::1', 'fc00::1', '::ffff:10.0.0.1', '0xc0a80101', '64:ff9b:1::1'].map(kind)).toEqual(Array(9).fill('private'));
    expect(['100.64.0.1', '100.127.255.254', '::ffff:100.64.0.1'].map(kind)).toEqual(Array(3).fill('shared'));
    expect(['0.0.0.0', '0', '::'].map(kind)).toEqual(Array(3).fill('unspecified'));
    expect(['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'].map(kind)).toEqual(Array(6).fill('public'));
  });
});

describe('the network policy', () => {
  it.each(METADATA_SPELLINGS.filter((spelling) => !spelling.includes('%')))('refuses a URL naming %s, even when an allowlist names it', async (spelling) => {
    const host = spelling.includes(':') && !spelling.startsWith('[') ? `[${spelling}]` : spelling;
    for (const policy of [createNetworkPolicy(), createNetworkPolicy({ exposed: true }), createNetworkPolicy({ allow: '169.254.0.0/16,fe80::/10' })]) {
      await expect(policy.checkUrl(new URL(`http://${host}/latest/meta-data/`))).rejects.toThrow(/are refused: it is a link-local address/);
    }
  });

  it.each(METADATA_SPELLINGS)('refuses a name that resolves to %s, and an SMTP host written as it', async (spelling) => {
    const policy = createNetworkPolicy({ resolve: stubResolver({ 'metadata.example.test': [spelling.replace(/^\[|\]$/g, '')] }) });
    await expect(policy.resolveHost('metadata.example.test')).rejects.toThrow(AddressRefusedError);
    await expect(policy.resolveHost(spelling)).rejects.toThrow(/link-local/);
    const { error } = await lookupOnce(policy, 'metadata.example.test', true);
    expect(error).toBeInstanceOf(AddressRefusedError);
  });

  it('refuses a name when any of its addresses is refused, since the socket may try each', async () => {
    const policy = createNetworkPolicy({ resolve: stubResolver({ 'mixed.example.test': ['93.184.216.34', '64:ff9b::a9fe:a9fe'] }) });
    const { error } = await lookupOnce(policy, 'mixed.example.test', true);
    expect(error?.message).toBe('Calls to mixed.example.test (64:ff9b::a9fe:a9fe, another way of writing 169.254.169.254) are refused: it is a link-local address, where cloud metadata services hand out credentials. Nothing was sent.');
  });

  it('hands the socket exactly the checked addresses, in the shape it asked for', async () => {
    const policy = createNetworkPolicy({ resolve: stubResolver({ 'api.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] }) });
    expect(await lookupOnce(policy, 'api.example.test', true)).toEqual({
      error: null,
      address: [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }],
      family: undefined,
    });
    expect(await lookupOnce(policy, 'api.example.test', false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const missing = await lookupOnce(policy, 'nowhere.example.test', false);
    expect(missing.error?.code).toBe('ENOTFOUND');
  });

  it('on the loopback default, lets loopback and private addresses through', async () => {
    const policy = createNetworkPolicy({ resolve: stubResolver({ 'db.internal': ['10.0.0.5'] }) });
    await expect(policy.checkUrl(new URL('http://127.0.0.1:4010/'))).resolves.toBeUndefined();
    await expect(policy.checkUrl(new URL('http://[::1]:4010/'))).resolves.toBeUndefined();
    expect((await policy.resolveHost('db.internal')).text).toBe('10.0.0.5');
  });

  it('when exposed, refuses loopback, private, shared and unspecified addresses in every spelling', async () => {
    const policy = createNetworkPolicy({ exposed: true, resolve: stubResolver({ 'db.internal': ['10.0.0.5'], 'api.example.test': ['93.184.216.34'] }) });
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '[::1]', '[::ffff:127.0.0.1]', '10.0.0.1', '0xa000001', '172.16.5.4', '192.168.0.10', '[fd12::1]', '100.64.1.1', '0.0.0.0', '[::]', '[64:ff9b::a00:1]']) {
      await expect(policy.checkUrl(new URL(`http://${host}/`)), host).rejects.toThrow(/are refused: it is (a loopback|an address in a private|an address in a provider|an unspecified)/);
    }
    await expect(policy.resolveHost('db.internal')).rejects.toThrow(
      'Calls to db.internal (10.0.0.5) are refused: it is an address in a private network, and this server is reachable from other machines, so its steps may not reach into its own network. If this step should reach it, add db.internal to ONCEFLOW_HTTP_ALLOW. Nothing was sent.',
    );
    expect((await policy.resolveHost('api.example.test')).text).toBe('93.184.216.34');
    await expect(policy.checkUrl(new URL('https://93.184.216.34/'))).resolves.toBeUndefined();
  });

  it('when exposed, opens an internal target named exactly by address, range or host name, never by a wildcard', async () => {
    const resolve = stubResolver({ 'db.internal': ['10.0.0.5'], 'billing.corp.test': ['192.168.7.7'], 'api.example.test': ['93.184.216.34'] });
    const policy = createNetworkPolicy({ exposed: true, resolve, allow: '127.0.0.1, 10.0.0.0/8, billing.corp.test, *.example.test, [fd00::]/8' });
    await expect(policy.checkUrl(new URL('http://127.0.0.1:4010/'))).resolves.toBeUndefined();
    await expect(policy.checkUrl(new URL('http://127.0.0.2/'))).rejects.toThrow(/not allowed/);
    await expect(policy.checkUrl(new URL('http://[fd00::7]/'))).resolves.toBeUndefined();
    expect((await policy.resolveHost('db.internal')).text).toBe('10.0.0.5');
    expect((await policy.resolveHost('billing.corp.test')).text).toBe('192.168.7.7');
    expect((await policy.resolveHost('api.example.test')).text).toBe('93.184.216.34');

    const wildcard = createNetworkPolicy({ exposed: true, allow: '*.corp.test', resolve });
    await expect(wildcard.resolveHost('billing.corp.test')).rejects.toThrow(/private network/);
  });

  it('holds to the allowlist: names, wildcards, addresses and ranges, matched on the address connected to', async () => {
    const resolve = stubResolver({ 'api.stripe.com': ['93.184.216.34'], 'hooks.partner.test': ['203.0.113.9'], 'evil.test': ['198.51.100.1'] });
    const policy = createNetworkPolicy({ allow: 'API.Stripe.com., *.partner.test, 203.0.113.0/24', resolve });
    await expect(policy.checkUrl(new URL('https://api.stripe.com/v1'))).resolves.toBeUndefined();
    expect((await policy.resolveHost('api.stripe.com')).text).toBe('93.184.216.34');
    expect((await policy.resolveHost('hooks.partner.test')).text).toBe('203.0.113.9');
    await expect(policy.resolveHost('evil.test')).rejects.toThrow('Calls to evil.test (198.51.100.1) are not allowed on this server (ONCEFLOW_HTTP_ALLOW lists the hosts that are); nothing was sent.');
    await expect(policy.checkUrl(new URL('http://198.51.100.1/'))).rejects.toThrow(/not allowed/);

    const namesOnly = createNetworkPolicy({ allow: 'api.stripe.com', resolve: async () => { throw new Error('a name off the list is refused before any lookup'); } });
    await expect(namesOnly.checkUrl(new URL('http://elsewhere.test/'))).rejects.toThrow(/not allowed/);
    await expect(namesOnly.resolveHost('elsewhere.test')).rejects.toThrow(/not allowed/);
  });
});
