// Which IP addresses web_fetch may connect to: public unicast only. A page the model reads can
// ask it to fetch anything, so an address that reaches this machine, its network or a cloud's
// metadata service (169.254.169.254) must never be dialled, whatever name led to it.
// The IPv4 blocks are IANA's special-purpose registry (RFC 6890 and its updates); for IPv6 only
// global unicast (2000::/3) is public, which leaves out loopback, the unspecified address,
// IPv4-mapped and -compatible forms, NAT64, ULA, link- and site-local and multicast at once.

import { isIPv4, isIPv6 } from "node:net";

/** [first address, prefix length, what it is] */
const PRIVATE_IPV4: readonly [string, number, string][] = [
  ["0.0.0.0", 8, "the unspecified network ('this host')"],
  ["10.0.0.0", 8, "a private network"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (where cloud metadata services answer)"],
  ["172.16.0.0", 12, "a private network"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "a private network"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved (and broadcast)"],
];

/** Inside 2000::/3, blocks that are still not the public internet. */
const SPECIAL_GLOBAL_IPV6: readonly [string, number, string][] = [
  ["2001::", 23, "IETF protocol assignments (Teredo and others)"],
  ["2001:db8::", 32, "documentation"],
  ["2002::", 16, "6to4, which hides an IPv4 address"],
  ["3fff::", 20, "documentation"],
];

/**
 * Why `address` is not a public unicast address ("loopback", "a private network"), or null
 * when it is one. Anything that is not an IP address at all is refused too.
 */
export function nonPublicReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(bare)) {
    const value = ipv4Value(bare);
    const hit = PRIVATE_IPV4.find(([first, bits]) => inBlock(value, ipv4Value(first), bits, 32));
    return hit ? hit[2] : null;
  }
  if (isIPv6(bare)) {
    const value = ipv6Value(bare);
    if (value >> 125n !== 1n) return ipv6Kind(value);
    const hit = SPECIAL_GLOBAL_IPV6.find(([first, bits]) =>
      inBlock(value, ipv6Value(first), bits, 128),
    );
    return hit ? hit[2] : null;
  }
  return "not an IP address";
}

/** What an IPv6 address outside global unicast is, in words. */
function ipv6Kind(value: bigint): string {
  if (value === 0n) return "the unspecified address";
  if (value === 1n) return "loopback";
  if (value >> 32n === 0xffffn) return "an IPv4-mapped address";
  if (value >> 32n === 0n) return "an IPv4-compatible address";
  if (value >> 32n === 0x64ff9b0000000000000000n) return "NAT64, which hides an IPv4 address";
  const top = Number(value >> 112n);
  if (top >> 9 === 0x7e) return "a unique local address (fc00::/7)";
  if (top >> 6 === 0x3fa) return "link-local";
  if (top >> 6 === 0x3fb) return "site-local";
  if (top >> 8 === 0xff) return "multicast";
  return "reserved, not global unicast";
}

function inBlock(value: bigint, first: bigint, bits: number, width: number): boolean {
  const shift = BigInt(width - bits);
  return value >> shift === first >> shift;
}

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((total, part) => (total << 8n) + BigInt(Number(part)), 0n);
}

function ipv6Value(address: string): bigint {
  // A dotted IPv4 tail (::ffff:1.2.3.4) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (dotted) {
    const v4 = ipv4Value(dotted[1] as string);
    text = `${address.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const middle = Array(8 - left.length - right.length).fill("0");
  return [...left, ...middle, ...right].reduce(
    (total, group) => (total << 16n) + BigInt(Number.parseInt(group, 16)),
    0n,
  );
}
