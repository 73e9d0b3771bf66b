/**
 * Classifies the host of a URL (as normalised by WHATWG `URL`) without any
 * DNS lookup: literal IPv4 and IPv6 addresses by range, and names that
 * always mean "this machine" or "this network".
 *
 * @internal
 */
export type HostClass = "public" | "loopback" | "private" | "link-local" | "unspecified" | "reserved"

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

const parseIpv4 = (host: string): ReadonlyArray<number> | undefined => {
  const match = ipv4.exec(host)
  if (match === null) return undefined
  const parts = match.slice(1).map(Number)
  return parts.every((p) => p <= 255) ? parts : undefined
}

const classifyIpv4 = ([a, b]: ReadonlyArray<number>): HostClass => {
  if (a === 0) return "unspecified"
  if (a === 127) return "loopback"
  if (a === 10) return "private"
  if (a === 172 && b! >= 16 && b! <= 31) return "private"
  if (a === 192 && b === 168) return "private"
  if (a === 100 && b! >= 64 && b! <= 127) return "private" // carrier-grade NAT
  if (a === 169 && b === 254) return "link-local"
  if (a === 192 && b === 0) return "reserved" // 192.0.0.0/24 and 192.0.2.0/24
  if (a === 198 && (b === 18 || b === 19)) return "reserved" // benchmarking
  if (a! >= 224) return "reserved" // multicast, reserved, broadcast
  return "public"
}

/** Eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
const parseIpv6 = (host: string): ReadonlyArray<number> | undefined => {
  if (!host.includes(":")) return undefined
  const halves = host.split("::")
  if (halves.length > 2) return undefined
  const groups = (part: string): Array<number> | undefined => {
    if (part === "") return []
    const out: Array<number> = []
    for (const piece of part.split(":")) {
      const v4 = parseIpv4(piece)
      if (v4 !== undefined) {
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
        continue
      }
      if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined
      out.push(parseInt(piece, 16))
    }
    return out
  }
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  return [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
}

const embeddedIpv4 = (g: ReadonlyArray<number>): ReadonlyArray<number> => [
  g[6]! >> 8,
  g[6]! & 0xff,
  g[7]! >> 8,
  g[7]! & 0xff
]

const classifyIpv6 = (g: ReadonlyArray<number>): HostClass => {
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroUntil(8)) return "unspecified"
  if (zeroUntil(7) && g[7] === 1) return "loopback"
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
  if (zeroUntil(5) && (g[5] === 0xffff || g[5] === 0)) return classifyIpv4(embeddedIpv4(g))
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIpv4(embeddedIpv4(g))
  if (g[0] === 0x2002) return classifyIpv4([g[1]! >> 8, g[1]! & 0xff, g[2]! >> 8, g[2]! & 0xff]) // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return "private" // unique local fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"
  if ((g[0]! & 0xffc0) === 0xfec0) return "private" // deprecated site-local
  if ((g[0]! & 0xff00) === 0xff00) return "reserved" // multicast
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "reserved" // documentation
  return "public"
}

const privateSuffixes = [".local", ".internal", ".lan", ".home.arpa", ".localdomain", ".intranet", ".corp"]

/**
 * Classifies a `URL#hostname` (lower case, IPv6 in brackets, IPv4 already
 * normalised to dotted quads by the URL parser).
 *
 * @internal
 */
export const classifyHost = (hostname: string): HostClass => {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "")
  const v4 = parseIpv4(host)
  if (v4 !== undefined) return classifyIpv4(v4)
  const v6 = parseIpv6(host.replace(/%.*$/, ""))
  if (v6 !== undefined) return classifyIpv6(v6)
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback"
  if (!host.includes(".")) return "private" // single-label names resolve through local search domains
  if (privateSuffixes.some((suffix) => host.endsWith(suffix))) return "private"
  return "public"
}
