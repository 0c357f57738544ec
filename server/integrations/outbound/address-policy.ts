import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a user-supplied URL may reach: public unicast only (docs/decisions/0040).
 * The ranges are data in node:net BlockLists (one per name, so the log can say which range
 * matched); IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
 * judged by the IPv4 address inside them, which a BlockList alone does not do for all of them.
 */
export type ForbiddenRange =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved';

type Subnet = readonly [network: string, prefix: number];

const IPV4_RANGES: ReadonlyArray<readonly [ForbiddenRange, readonly Subnet[]]> = [
  ['broadcast', [['255.255.255.255', 32]]],
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]]],
  ['link-local', [['169.254.0.0', 16]]],
  ['cgnat', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  ['documentation', [['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24]]],
  // IETF protocol assignments, the deprecated 6to4 relay anycast, benchmarking, class E.
  ['reserved', [['192.0.0.0', 24], ['192.88.99.0', 24], ['198.18.0.0', 15], ['240.0.0.0', 4]]],
];

const IPV6_RANGES: ReadonlyArray<readonly [ForbiddenRange, readonly Subnet[]]> = [
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  // Unique-local, and the deprecated site-local.
  ['private', [['fc00::', 7], ['fec0::', 10]]],
  ['link-local', [['fe80::', 10]]],
  ['multicast', [['ff00::', 8]]],
  ['documentation', [['2001:db8::', 32], ['3fff::', 20]]],
  // Discard-only, local-use NAT64, IETF protocol assignments (Teredo, benchmarking, ORCHID),
  // SRv6 segment ids.
  ['reserved', [['100::', 64], ['64:ff9b:1::', 48], ['2001::', 23], ['5f00::', 16]]],
];

function blockLists(ranges: typeof IPV4_RANGES, family: 'ipv4' | 'ipv6') {
  return ranges.map(([name, subnets]) => {
    const list = new BlockList();
    for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
    return [name, list] as const;
  });
}

const V4_LISTS = blockLists(IPV4_RANGES, 'ipv4');
const V6_LISTS = blockLists(IPV6_RANGES, 'ipv6');
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/**
 * The forbidden range an address is in, or null when it is public. Anything that is not a
 * valid IPv4 or IPv6 address (zone id aside) is 'reserved': refusing is the safe answer.
 */
export function forbiddenRange(address: string): ForbiddenRange | null {
  // A zone id (fe80::1%eth0) names an interface, not a different address.
  const bare = address.replace(/%.*$/, '');
  if (isIPv4(bare)) return v4Range(bare);
  if (!isIPv6(bare)) return 'reserved';
  const bytes = ipv6Bytes(bare);
  const embedded = embeddedIPv4(bytes);
  if (embedded) return v4Range(embedded);
  for (const [name, list] of V6_LISTS) if (list.check(bare, 'ipv6')) return name;
  // Everything outside 2000::/3 is unassigned or special (RFC 4291); only global unicast is public.
  return GLOBAL_UNICAST_V6.check(bare, 'ipv6') ? null : 'reserved';
}

export function isLoopback(address: string): boolean {
  return forbiddenRange(address) === 'loopback';
}

function v4Range(address: string): ForbiddenRange | null {
  for (const [name, list] of V4_LISTS) if (list.check(address, 'ipv4')) return name;
  return null;
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-compatible ::a.b.c.d (not :: and ::1), NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::.
 */
function embeddedIPv4(b: Uint8Array): string | null {
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const quad = (at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12);
  if (zeros(0, 12) && !zeros(12, 15)) return quad(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return quad(12);
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2);
  return null;
}

/** The 16 bytes of a valid IPv6 text (checked with isIPv6 first), a dotted tail included. */
function ipv6Bytes(text: string): Uint8Array {
  let groups = text;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(groups);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    groups = `${groups.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = groups.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}
