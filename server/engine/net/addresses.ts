/**
 * Reading an address the way a socket would, and saying what kind of place it points at.
 *
 * One address has many spellings: 169.254.169.254 is also 2852039166, 0251.0376.0251.0376,
 * 0xa9fea9fe, ::ffff:169.254.169.254, ::ffff:a9fe:a9fe and (through a NAT64 gateway)
 * 64:ff9b::a9fe:a9fe. A check that knows one spelling knows none, so every address is
 * parsed into its bytes (ipaddr.js) and IPv6 forms that carry an IPv4 address are judged by
 * that IPv4 address as well.
 */
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export interface ParsedAddress {
  address: IpAddress;
  /** The exact text to connect to: canonical, so the socket reads the bytes that were judged. */
  text: string;
  family: 4 | 6;
}

/** Most severe first: a mixed answer is judged by its worst part. */
export const ADDRESS_CLASSES = ['link-local', 'unspecified', 'loopback', 'private', 'shared', 'public'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

function exactIPv6(text: string): ipaddr.IPv6 | undefined {
  // ipaddr.js reads "::a.b.c.d" as "::ffff:a.b.c.d"; a socket does not. The URL parser
  // rewrites any IPv6 spelling into plain hex groups, which ipaddr.js then reads exactly.
  try {
    const host = new URL(`http://[${text}]/`).hostname;
    return ipaddr.IPv6.parse(host.slice(1, -1));
  } catch {
    return undefined;
  }
}

/**
 * Reads an address literal in any form a resolver or socket accepts: dotted, decimal,
 * octal, hex or short IPv4 (`127.1`), IPv6 with or without brackets and a zone (`%eth0`).
 * Returns undefined for anything that is a host name.
 */
export function parseAddress(input: string): ParsedAddress | undefined {
  const bare = input.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return undefined;
  const zoneAt = bare.indexOf('%');
  const body = zoneAt === -1 ? bare : bare.slice(0, zoneAt);
  const zone = zoneAt === -1 ? '' : bare.slice(zoneAt);
  if (body.includes(':')) {
    const address = exactIPv6(body);
    return address ? { address, text: `${address.toString()}${zone}`, family: 6 } : undefined;
  }
  if (zone || !ipaddr.IPv4.isValid(body)) return undefined;
  const address = ipaddr.IPv4.parse(body);
  return { address, text: address.toString(), family: 4 };
}

function ipv4At(bytes: number[], indexes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(indexes.map((index) => bytes[index] ?? 0));
}

const LAST_32_BITS = [12, 13, 14, 15];
// Where RFC 6052 puts the IPv4 address for each prefix length a local NAT64 prefix
// (64:ff9b:1::/48) may use; byte 8 is always skipped.
const NAT64_LOCAL_POSITIONS = [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], LAST_32_BITS];

/** The IPv4 addresses an IPv6 address stands for, in every form that embeds one. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const words = address.parts;
  const bytes = address.toByteArray();
  const zeroUpTo = (end: number) => words.slice(0, end).every((word) => word === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated, RFC 6145)
  if (zeroUpTo(5) && words[5] === 0xffff) return [ipv4At(bytes, LAST_32_BITS)];
  if (zeroUpTo(4) && words[4] === 0xffff && words[5] === 0) return [ipv4At(bytes, LAST_32_BITS)];
  // ::a.b.c.d (IPv4-compatible, deprecated yet still routed by some stacks)
  if (zeroUpTo(6)) return [ipv4At(bytes, LAST_32_BITS)];
  if (words[0] === 0x64 && words[1] === 0xff9b) {
    // 64:ff9b::/96, the well-known NAT64 prefix, and the local-use 64:ff9b:1::/48
    if (words.slice(2, 6).every((word) => word === 0)) return [ipv4At(bytes, LAST_32_BITS)];
    if (words[2] === 1) return NAT64_LOCAL_POSITIONS.map((indexes) => ipv4At(bytes, indexes));
  }
  // 2002:a.b.c.d::/48 (6to4)
  if (words[0] === 0x2002) return [ipv4At(bytes, [2, 3, 4, 5])];
  // 2001:0::/32 (Teredo): the client's address, bit-inverted in the last 32 bits
  if (words[0] === 0x2001 && words[1] === 0) return [new ipaddr.IPv4(bytes.slice(12).map((byte) => byte ^ 0xff))];
  return [];
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  switch (address.range()) {
    case 'linkLocal':
      return 'link-local';
    case 'unspecified':
      return 'unspecified';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'carrierGradeNat':
      return 'shared';
    default:
      return 'public';
  }
}

function worst(classes: AddressClass[]): AddressClass {
  return classes.reduce<AddressClass>((a, b) => (ADDRESS_CLASSES.indexOf(a) <= ADDRESS_CLASSES.indexOf(b) ? a : b), 'public');
}

/** What kind of place an address points at; an IPv6 form that embeds IPv4 is judged by both. */
export function classifyAddress(address: IpAddress): AddressClass {
  if (address.kind() === 'ipv4') return classifyIPv4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  const range: string = v6.range();
  if (range === 'linkLocal') return 'link-local';
  if (range === 'unspecified') return 'unspecified';
  if (range === 'loopback') return 'loopback';
  // fc00::/7 unique local, and the retired site-local fec0::/10 that some stacks still route
  const own: AddressClass = range === 'uniqueLocal' || v6.match(ipaddr.IPv6.parse('fec0::'), 10) ? 'private' : 'public';
  const embedded = embeddedIPv4(v6).map(classifyIPv4);
  if (v6.match(ipaddr.IPv6.parse('64:ff9b:1::'), 48)) {
    // A local NAT64 prefix leads into the local network whatever the IPv4 part says; of
    // its possible readings, the zero bytes of a wrong one say nothing.
    return worst(['private', ...embedded.filter((kind) => kind !== 'unspecified')]);
  }
  return worst([own, ...embedded]);
}
