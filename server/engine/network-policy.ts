/**
 * Where steps that touch the network (http.request, message.post, email.send) may connect.
 *
 * The check is made on the address the socket connects to, never on the text of a URL:
 * - HTTP: the agents below carry a `lookup` that resolves the name, checks every address
 *   and hands the socket only checked addresses. A name cannot resolve to one address for
 *   the check and another for the call, because there is no second resolution.
 * - SMTP: `resolveHost` resolves once and checks; the mail transport then connects to that
 *   address, with the original name kept for TLS.
 * - Address literals (no lookup happens for them) are checked before connecting, in every
 *   spelling (see net/addresses.ts).
 *
 * The rules, in order:
 * 1. Link-local addresses (169.254.0.0/16, fe80::/10, and IPv6 forms that embed them) are
 *    refused always: cloud metadata services live there and hand out credentials.
 * 2. ONCEFLOW_HTTP_ALLOW, when set, is an allowlist; comma-separated entries of three kinds:
 *    `api.example.com` (an exact host name), `*.example.com` (the name and every name
 *    under it), and `10.1.2.3` or `10.0.0.0/8` or `fd00::/8` (an address or range, matched
 *    against the address connected to). A target must match one entry.
 * 3. When the server is exposed (HOST is not a loopback address), loopback, private
 *    (10/8, 172.16/12, 192.168/16, fc00::/7), shared CGNAT (100.64/10) and unspecified
 *    (0.0.0.0, ::) addresses are refused as well, so a flow cannot reach into the
 *    server's own network. An allowlist entry opens them only when it names the target
 *    exactly: an address or range that contains the address, or the exact host name.
 *    A `*.` pattern never does, since anyone who controls one name under it could point
 *    that name at an internal address.
 * On the loopback default rule 3 does not apply, so the sandbox and local services work.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { domainToASCII } from 'node:url';
import { NonRetriableError } from './errors.ts';
import type ipaddr from 'ipaddr.js';
import { classifyAddress, embeddedIPv4, parseAddress, type AddressClass, type IpAddress, type ParsedAddress } from './net/addresses.ts';

/** Resolves a host name to address texts; the system resolver unless a test hands in a stub. */
export type Resolver = (hostname: string) => Promise<string[]>;

export interface NetworkPolicyOptions {
  /** ONCEFLOW_HTTP_ALLOW (see above). */
  allow?: string;
  /** True when the server is reachable from other machines (default: false). */
  exposed?: boolean;
  resolve?: Resolver;
}

export interface NetworkPolicy {
  /** Refuses what can be refused without resolving: address literals, names off the allowlist. */
  checkUrl(url: URL): Promise<void>;
  /** Resolves a host written in any form to one permitted address to connect to. */
  resolveHost(host: string): Promise<ParsedAddress>;
  /** For net/tls connect options: every address handed to the socket has passed the check. */
  lookup: LookupFunction;
  /** Keep-alive agents whose every new socket goes through `lookup`. */
  agents: { 'http:': http.Agent; 'https:': https.Agent };
}

/** A target the policy refuses; nothing was sent to it. */
export class AddressRefusedError extends NonRetriableError {
  readonly code = 'EADDRESSREFUSED';
}

interface AllowList {
  names: Set<string>;
  suffixes: string[];
  ranges: Array<[IpAddress, number]>;
  empty: boolean;
}

function normaliseName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return domainToASCII(lower) || lower;
}

function parseAllowList(text: string | undefined): AllowList {
  const list: AllowList = { names: new Set(), suffixes: [], ranges: [], empty: true };
  for (const raw of (text ?? '').split(',')) {
    // "[fd00::1]" and "[fd00::]/8" are read like "fd00::1" and "fd00::/8".
    const entry = raw.trim().toLowerCase().replace(/[[\]]/g, '');
    if (!entry) continue;
    list.empty = false;
    const [base = '', bits] = entry.split('/');
    const address = parseAddress(base);
    if (address) {
      const width = address.family === 4 ? 32 : 128;
      const prefix = bits === undefined ? width : Number(bits);
      if (Number.isInteger(prefix) && prefix >= 0 && prefix <= width) list.ranges.push([address.address, prefix]);
    } else if (entry.startsWith('*.')) {
      list.suffixes.push(normaliseName(entry.slice(2)));
    } else {
      list.names.add(normaliseName(entry));
    }
  }
  return list;
}

const WHAT_IT_IS: Record<Exclude<AddressClass, 'public' | 'link-local'>, string> = {
  unspecified: 'an unspecified address (0.0.0.0 or ::), which means this machine itself',
  loopback: 'a loopback address, which means this machine itself',
  private: 'an address in a private network',
  shared: "an address in a provider's shared network (100.64.0.0/10)",
};

/** The IPv4 address an IPv6 spelling stands for, when it names exactly one. */
function standsFor(parsed: ParsedAddress): string | undefined {
  const [only, ...others] = parsed.address.kind() === 'ipv6' ? embeddedIPv4(parsed.address as ipaddr.IPv6) : [];
  return only && others.length === 0 ? only.toString() : undefined;
}

async function systemResolver(hostname: string): Promise<string[]> {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

export function createNetworkPolicy(options: NetworkPolicyOptions = {}): NetworkPolicy {
  const allow = parseAllowList(options.allow);
  const exposed = options.exposed ?? false;
  const resolve = options.resolve ?? systemResolver;

  const nameListed = (name: string) => allow.names.has(name);
  const nameCovered = (name: string) => nameListed(name) || allow.suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));

  /** Refuses a name before resolving it, when no address entry could still admit it. */
  function checkName(name: string): void {
    if (allow.empty || allow.ranges.length > 0 || nameCovered(name)) return;
    throw new AddressRefusedError(`Calls to ${name} are not allowed on this server (ONCEFLOW_HTTP_ALLOW lists the hosts that are); nothing was sent.`);
  }

  /** `name` is the host name as written, undefined for a literal. */
  function checkAddress(parsed: ParsedAddress, name: string | undefined): void {
    const ipv4 = standsFor(parsed);
    const shown = name
      ? `${name} (${parsed.text}${ipv4 ? `, another way of writing ${ipv4}` : ''})`
      : `${parsed.text}${ipv4 ? ` (another way of writing ${ipv4})` : ''}`;
    const kind = classifyAddress(parsed.address);
    if (kind === 'link-local') {
      throw new AddressRefusedError(`Calls to ${shown} are refused: it is a link-local address, where cloud metadata services hand out credentials. Nothing was sent.`);
    }
    const inRange = allow.ranges.some(([range, bits]) => range.kind() === parsed.address.kind() && parsed.address.match(range, bits));
    if (!allow.empty && !inRange && !(name !== undefined && nameCovered(name))) {
      throw new AddressRefusedError(`Calls to ${shown} are not allowed on this server (ONCEFLOW_HTTP_ALLOW lists the hosts that are); nothing was sent.`);
    }
    if (exposed && kind !== 'public' && !inRange && !(name !== undefined && nameListed(name))) {
      throw new AddressRefusedError(
        `Calls to ${shown} are refused: it is ${WHAT_IT_IS[kind]}, and this server is reachable from other machines, so its steps may not reach into its own network. ` +
          `If this step should reach it, add ${name ?? parsed.text} to ONCEFLOW_HTTP_ALLOW. Nothing was sent.`,
      );
    }
  }

  async function permittedAddresses(host: string): Promise<ParsedAddress[]> {
    const literal = parseAddress(host);
    if (literal) {
      checkAddress(literal, undefined);
      return [literal];
    }
    const name = normaliseName(host);
    checkName(name);
    const answers = await resolve(host);
    if (answers.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    // Every answer is checked, not only the first: the socket may try any of them.
    return answers.map((answer) => {
      const parsed = parseAddress(answer);
      if (!parsed) throw Object.assign(new Error(`${host} resolved to "${answer}", which is not an address`), { code: 'ENOTFOUND' });
      checkAddress(parsed, name);
      return parsed;
    });
  }

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
    permittedAddresses(hostname).then(
      (addresses) => {
        const wanted = family === 4 || family === 6 ? addresses.filter((entry) => entry.family === family) : addresses;
        const first = wanted[0];
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '');
        } else if (lookupOptions.all) {
          callback(null, wanted.map((entry) => ({ address: entry.text, family: entry.family })));
        } else {
          callback(null, first.text, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  return {
    async checkUrl(url) {
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      const literal = parseAddress(host);
      if (literal) checkAddress(literal, undefined);
      else checkName(normaliseName(host));
    },
    async resolveHost(host) {
      const [first] = await permittedAddresses(host);
      return first!;
    },
    lookup,
    agents: {
      'http:': new http.Agent({ keepAlive: true, maxSockets: 256, lookup }),
      'https:': new https.Agent({ keepAlive: true, maxSockets: 256, lookup }),
    },
  };
}
