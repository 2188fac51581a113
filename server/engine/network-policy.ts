/**
 * Where the HTTP-based steps may connect. Link-local addresses (169.254.0.0/16, fe80::/10)
 * are refused always: cloud metadata services live there and hand out credentials. An
 * optional allowlist (ONCEFLOW_HTTP_ALLOW, comma-separated host names, `*.example.com`
 * wildcards, or IP addresses) narrows the rest.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { UserError } from './errors.ts';

function isLinkLocal(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('169.254.');
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return mapped[1]!.startsWith('169.254.');
  return /^fe[89ab][0-9a-f]?:/.test(lower);
}

function allowed(host: string, patterns: string[]): boolean {
  return patterns.some((pattern) =>
    pattern.startsWith('*.') ? host === pattern.slice(2) || host.endsWith(pattern.slice(1)) : host === pattern,
  );
}

export function createNetworkPolicy(allowList: string | undefined) {
  const patterns = (allowList ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  return async function checkUrl(url: URL): Promise<void> {
    const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
    if (patterns.length && !allowed(host, patterns)) {
      throw new UserError(`Calls to ${host} are not allowed on this server (ONCEFLOW_HTTP_ALLOW lists the hosts that are).`);
    }
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((entry) => entry.address);
    if (addresses.some(isLinkLocal)) {
      throw new UserError(`Calls to ${host} are refused: it is a link-local address, where cloud metadata services hand out credentials.`);
    }
  };
}
