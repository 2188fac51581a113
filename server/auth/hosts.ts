/**
 * Which names this server answers to. A web page anywhere can make a browser send requests
 * to 127.0.0.1 by pointing its own name at that address (DNS rebinding); the browser then
 * sends the page's name in `Host`. So the app, /trpc and /sandbox are served only to Host
 * values that name this server, and state-changing requests from a browser must come from
 * a page of this server (`Origin`).
 *
 * Names accepted (ports are not compared: a rebinding page uses our port too):
 * - loopback: `localhost`, `*.localhost`, 127.0.0.0/8, ::1 — a page cannot rebind these;
 * - the address the server is bound to, and when bound to every address (0.0.0.0 / ::),
 *   every address of this machine's interfaces and its host name;
 * - the hosts of ONCEFLOW_PUBLIC_URL (comma-separated), for a DNS name or a proxy in front.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

export interface HostPolicy {
  /** True when a Host header value (name or address, optional port) names this server. */
  accepts(hostHeader: string | undefined): boolean;
  /** True when an Origin header value is a page of this server. */
  acceptsOrigin(origin: string): boolean;
  /** The names accepted besides loopback, for messages. */
  readonly names: readonly string[];
}

/** `Example.COM.:3000` → `example.com`; `[::1]:80` → `::1`. */
export function hostName(hostHeader: string): string {
  let host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']') === -1 ? undefined : host.indexOf(']'));
  else if (host.split(':').length === 2) host = host.slice(0, host.indexOf(':'));
  return host.replace(/\.$/, '');
}

export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1' || name === '0:0:0:0:0:0:0:1';
}

const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

function machineNames(): string[] {
  const names = [hostname().toLowerCase()];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) names.push(entry.address.toLowerCase().replace(/%.*$/, ''));
  }
  return names;
}

export function createHostPolicy(options: { bindHost: string; publicUrls?: string }): HostPolicy {
  const names = new Set<string>();
  const bound = hostName(options.bindHost);
  if (WILDCARD_ADDRESSES.has(bound)) for (const name of machineNames()) names.add(name);
  else names.add(bound);
  for (const entry of (options.publicUrls ?? '').split(',').map((value) => value.trim()).filter(Boolean)) {
    names.add(hostName(new URL(entry).host));
  }

  const acceptsName = (name: string) => isLoopbackName(name) || names.has(name);
  return {
    names: [...names],
    accepts(hostHeader) {
      // HTTP/1.0 without Host: no browser sends that, so no page can be behind it.
      if (hostHeader === undefined) return true;
      return acceptsName(hostName(hostHeader));
    },
    acceptsOrigin(origin) {
      try {
        const url = new URL(origin);
        return (url.protocol === 'http:' || url.protocol === 'https:') && acceptsName(hostName(url.host));
      } catch {
        // `null` (sandboxed frames, file pages) and anything unparsable.
        return false;
      }
    },
  };
}
