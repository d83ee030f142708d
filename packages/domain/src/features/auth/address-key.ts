import { isIPv6 } from "node:net";

/**
 * The key a client address is limited under (sign-ins, sign-ups, resets per address): an IPv4
 * address as it is, an IPv6 one by its /64, since a single host is usually given a whole /64 and
 * could take a new address for every attempt. An IPv4 address written as IPv6 (`::ffff:a.b.c.d`)
 * is the IPv4 address.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = "", tail] = ip.split("%")[0]!.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => "0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
