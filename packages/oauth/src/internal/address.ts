/**
 * Classifies a host without DNS: IP literals by the IANA special-purpose
 * registries (the ranges of `ipaddr.js`), and names that always mean "this
 * machine" or "this network".
 *
 * @internal
 */
import ipaddr from "ipaddr.js"

/** @internal */
export type HostClass = "public" | "loopback" | "private" | "link-local" | "unspecified" | "reserved"

/** `ipaddr.js` IPv4 range names; anything not listed here (multicast, broadcast, reserved, as112, amt, ...) is reserved. */
const ipv4Classes: Readonly<Record<string, HostClass>> = {
  unicast: "public",
  unspecified: "unspecified",
  loopback: "loopback",
  private: "private",
  carrierGradeNat: "private",
  linkLocal: "link-local"
}

/** IPv6 range names with a class of their own; the rest (multicast, documentation, ORCHID, teredo, ...) is reserved. */
const ipv6Classes: Readonly<Record<string, HostClass>> = {
  unspecified: "unspecified",
  loopback: "loopback",
  uniqueLocal: "private",
  deprecatedSiteLocal: "private",
  linkLocal: "link-local"
}

const classifyIpv4 = (address: ipaddr.IPv4): HostClass => ipv4Classes[address.range()] ?? "reserved"

const ipv4At = (parts: ReadonlyArray<number>, index: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([parts[index]! >> 8, parts[index]! & 0xff, parts[index + 1]! >> 8, parts[index + 1]! & 0xff])

const classifyIpv6 = (address: ipaddr.IPv6): HostClass => {
  const range: string = address.range()
  const parts = address.parts
  switch (range) {
    // translation and tunnelling forms carry an IPv4 address: it decides
    case "ipv4Mapped":
    case "rfc6145":
      return classifyIpv4(ipv4At(parts, 6))
    case "rfc6052":
      // the well-known NAT64 prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 is reserved
      return parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0)
        ? classifyIpv4(ipv4At(parts, 6))
        : "reserved"
    case "6to4":
      return classifyIpv4(ipv4At(parts, 1))
    case "unicast":
      // the deprecated IPv4-compatible form ::a.b.c.d
      if (parts.slice(0, 6).every((p) => p === 0)) return classifyIpv4(ipv4At(parts, 6))
      // only 2000::/3 is allocated for global unicast; the rest of the space is reserved by IANA
      return (parts[0]! & 0xe000) === 0x2000 ? "public" : "reserved"
    default:
      return ipv6Classes[range] ?? "reserved"
  }
}

/**
 * Classifies an IP address (dotted quad, or IPv6 with or without brackets
 * and zone); `undefined` when the string is not an IP address.
 *
 * @internal
 */
export const classifyAddress = (text: string): HostClass | undefined => {
  const host = text.replace(/^\[(.*)\]$/, "$1")
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return classifyIpv4(ipaddr.IPv4.parse(host))
  if (host.includes(":") && ipaddr.IPv6.isValid(host)) return classifyIpv6(ipaddr.IPv6.parse(host))
  return undefined
}

const privateSuffixes = [".local", ".internal", ".lan", ".home.arpa", ".localdomain", ".intranet", ".corp"]

/**
 * Classifies a `URL#hostname` (lower case, IPv6 in brackets, IPv4 already
 * normalised to dotted quads by the URL parser).
 *
 * @internal
 */
export const classifyHost = (hostname: string): HostClass => {
  const host = hostname.toLowerCase().replace(/\.$/, "")
  const literal = classifyAddress(host)
  if (literal !== undefined) return literal
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback"
  if (!host.includes(".")) return "private" // single-label names resolve through local search domains
  if (privateSuffixes.some((suffix) => host.endsWith(suffix))) return "private"
  return "public"
}

/** @internal whether a `URL#hostname` is an IP literal (nothing to resolve) */
export const isIpLiteral = (hostname: string): boolean => classifyAddress(hostname) !== undefined
