import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Discovery, HostResolver, OAuthError, UrlPolicy } from "../src/index.js"
import * as NodeHostResolver from "../src/NodeHostResolver.js"
import { fakeHttp } from "./fixtures/fakeHttp.js"

const verdict = (url: string, policy: UrlPolicy.UrlPolicy = UrlPolicy.strict) =>
  UrlPolicy.violation(new URL(url), policy)

describe("UrlPolicy (SSRF guard)", () => {
  it("strict: https to public hosts only", () => {
    expect(verdict("https://auth.example.com/token")).toBeUndefined()
    expect(verdict("https://93.184.216.34/")).toBeUndefined()
    expect(verdict("https://[2606:2800:220:1::1]/")).toBeUndefined()
    expect(verdict("http://auth.example.com/token")).toBe("only https is allowed")
    expect(verdict("ftp://auth.example.com/")).toContain("scheme")
    expect(verdict("javascript:alert(1)")).toContain("scheme")
    expect(verdict("https://user:pw@auth.example.com/")).toContain("credentials")
  })

  const refusedByDefault: ReadonlyArray<[string, string]> = [
    ["https://localhost/", "loopback"],
    ["https://app.localhost/", "loopback"],
    ["https://127.0.0.1/", "loopback"],
    ["https://127.1.2.3/", "loopback"],
    ["https://0x7f.1/", "loopback"], // normalised by URL to 127.0.0.1
    ["https://2130706433/", "loopback"],
    ["https://[::1]/", "loopback"],
    ["https://[::ffff:127.0.0.1]/", "loopback"],
    ["https://10.1.2.3/", "private"],
    ["https://172.16.0.1/", "private"],
    ["https://172.31.255.255/", "private"],
    ["https://192.168.1.1/", "private"],
    ["https://100.64.0.1/", "private"],
    ["https://[fd00::1]/", "private"],
    ["https://[::ffff:10.0.0.1]/", "private"],
    ["https://printer.local/", "private"],
    ["https://metadata.google.internal/", "private"],
    ["https://intranet/", "private"],
    ["https://169.254.169.254/latest/meta-data", "link-local"],
    ["https://[fe80::1]/", "link-local"],
    ["https://[::ffff:169.254.169.254]/", "link-local"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://[::]/", "unspecified"],
    ["https://224.0.0.1/", "reserved"],
    ["https://255.255.255.255/", "reserved"]
  ]
  for (const [url, kind] of refusedByDefault) {
    it(`refuses ${url} (${kind})`, () => {
      expect(verdict(url)).toContain(kind)
    })
  }

  it("172.32.0.1 and 11.0.0.1 are public", () => {
    expect(verdict("https://172.32.0.1/")).toBeUndefined()
    expect(verdict("https://11.0.0.1/")).toBeUndefined()
  })

  it("allowHttpLoopback: http and https to loopback, still nothing private", () => {
    const dev = UrlPolicy.loopbackDevelopment
    expect(verdict("http://127.0.0.1:8080/", dev)).toBeUndefined()
    expect(verdict("http://localhost:3000/cb", dev)).toBeUndefined()
    expect(verdict("http://[::1]:3000/", dev)).toBeUndefined()
    expect(verdict("https://localhost/", dev)).toBeUndefined()
    expect(verdict("http://10.0.0.1/", dev)).toContain("private")
    expect(verdict("http://auth.example.com/", dev)).toBe("only https is allowed")
    expect(verdict("http://0.0.0.0:8080/", dev)).toContain("unspecified")
  })

  it("allowLoopback alone keeps loopback on https", () => {
    expect(verdict("https://127.0.0.1/", { allowLoopback: true })).toBeUndefined()
    expect(verdict("http://127.0.0.1/", { allowLoopback: true })).toBe("only https is allowed")
  })

  it("allowPrivateNetworks: private and link-local over https", () => {
    const policy = { allowPrivateNetworks: true }
    expect(verdict("https://10.0.0.1/", policy)).toBeUndefined()
    expect(verdict("https://[fe80::1]/", policy)).toBeUndefined()
    expect(verdict("http://10.0.0.1/", policy)).toBe("only https is allowed")
    expect(verdict("https://127.0.0.1/", policy)).toContain("loopback")
  })

  it("allowed and blocked hosts", () => {
    const policy = { allowedHosts: ["auth.example.com", "*.idp.example"], blockedHosts: ["evil.idp.example"] }
    expect(verdict("https://auth.example.com/", policy)).toBeUndefined()
    expect(verdict("https://login.idp.example/", policy)).toBeUndefined()
    expect(verdict("https://idp.example/", policy)).toContain("not in the allowed hosts")
    expect(verdict("https://other.example.com/", policy)).toContain("not in the allowed hosts")
    expect(verdict("https://evil.idp.example/", policy)).toContain("blocked")
  })

  it.effect("check fails with an UnsafeUrl OAuthError naming the URL's role", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(UrlPolicy.check("http://169.254.169.254/x", UrlPolicy.strict, "token endpoint"))
      expect(error.reason).toBe("UnsafeUrl")
      expect(error.message).toContain("token endpoint")
      expect((yield* UrlPolicy.check("https://as.example/t", UrlPolicy.strict, "token endpoint")).href).toBe(
        "https://as.example/t"
      )
      expect((yield* Effect.flip(UrlPolicy.check("not a url", UrlPolicy.strict, "x"))).reason).toBe("UnsafeUrl")
    }))

  // One address inside each IANA special-purpose range (IPv4: RFC 6890 registry; IPv6: the same), with the class
  // it gets. Ranges that carry an IPv4 address (mapped, NAT64, 6to4) take the class of that address.
  const specialPurpose: ReadonlyArray<[string, string]> = [
    ["0.1.2.3", "unspecified"], // 0.0.0.0/8 "this network"
    ["10.20.30.40", "private"],
    ["100.100.0.1", "private"], // shared address space (CGNAT)
    ["127.0.0.53", "loopback"],
    ["169.254.1.1", "link-local"],
    ["172.20.0.1", "private"],
    ["192.0.0.8", "reserved"], // IETF protocol assignments
    ["192.0.2.1", "reserved"], // TEST-NET-1
    ["192.31.196.1", "reserved"], // AS112-v4
    ["192.52.193.1", "reserved"], // AMT
    ["192.88.99.1", "reserved"], // deprecated 6to4 relay anycast
    ["192.168.0.1", "private"],
    ["192.175.48.1", "reserved"], // direct delegation AS112
    ["198.18.0.1", "reserved"], // benchmarking
    ["198.51.100.7", "reserved"], // TEST-NET-2
    ["203.0.113.9", "reserved"], // TEST-NET-3
    ["224.0.0.251", "reserved"], // multicast
    ["240.0.0.1", "reserved"], // reserved for future use
    ["255.255.255.255", "reserved"], // limited broadcast
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"], // IPv4-mapped
    ["::ffff:0:10.0.0.1", "private"], // IPv4-translated (RFC 6145)
    ["64:ff9b::a9fe:a9fe", "link-local"], // NAT64 (RFC 6052) of 169.254.169.254
    ["64:ff9b:1::1", "reserved"], // local-use NAT64 (RFC 8215)
    ["100::1", "reserved"], // discard-only
    ["2001::1", "reserved"], // TEREDO
    ["2001:1::1", "reserved"], // port control protocol anycast
    ["2001:2::1", "reserved"], // benchmarking
    ["2001:3::1", "reserved"], // AMT
    ["2001:4:112::1", "reserved"], // AS112-v6
    ["2001:10::1", "reserved"], // deprecated ORCHID
    ["2001:20::1", "reserved"], // ORCHIDv2
    ["2001:30::1", "reserved"], // drone remote ID
    ["2001:db8::1", "reserved"], // documentation
    ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
    ["2620:4f:8000::1", "reserved"], // direct delegation AS112
    ["3fff::1", "reserved"], // documentation (RFC 9637)
    ["5f00::1", "reserved"], // segment routing SIDs
    ["fc00::1", "private"], // unique local
    ["fe80::1", "link-local"],
    ["fec0::1", "private"], // deprecated site-local
    ["ff02::1", "reserved"], // multicast
    ["4000::1", "reserved"] // outside 2000::/3: not allocated for unicast
  ]
  for (const [address, kind] of specialPurpose) {
    it(`special-purpose ${address}: ${kind}`, () => {
      const host = address.includes(":") ? `[${address}]` : address
      expect(verdict(`https://${host}/`)).toContain(kind)
    })
  }

  it("public unicast passes, in both families", () => {
    for (
      const address of [
        "8.8.8.8",
        "1.1.1.1",
        "[2606:4700:4700::1111]",
        "[2a00:1450:4001::200e]",
        "[::ffff:8.8.8.8]",
        "[64:ff9b::808:808]"
      ]
    ) {
      expect(verdict(`https://${address}/`), address).toBeUndefined()
    }
  })

  const resolvingTo = (table: Record<string, ReadonlyArray<string>>) =>
    Layer.succeed(HostResolver.HostResolver, {
      lookup: (host) =>
        table[host] === undefined
          ? Effect.fail(new OAuthError.OAuthError({ reason: "Http", message: `${host} does not resolve` }))
          : Effect.succeed(table[host])
    })

  it.effect("checkAddresses: a public-looking name resolving to a special-purpose address is refused", () =>
    Effect.gen(function*() {
      const url = new URL("https://auth.example.com/token")
      const refused = yield* Effect.flip(UrlPolicy.checkAddresses(url, UrlPolicy.strict, "token endpoint"))
      expect(refused.reason).toBe("UnsafeUrl")
      expect(refused.message).toContain("resolved to 127.0.0.1")
      expect(refused.message).toContain("loopback")
      // allowed when loopback is allowed, unchecked when the policy opts out or no resolver is given
      expect((yield* UrlPolicy.checkAddresses(url, { allowLoopback: true }, "x")).href).toBe(url.href)
      expect((yield* UrlPolicy.checkAddresses(url, { resolveHostNames: false }, "x")).href).toBe(url.href)
      // every address counts, not the first
      const mixed = new URL("https://mixed.example.com/")
      expect((yield* Effect.flip(UrlPolicy.checkAddresses(mixed, UrlPolicy.strict, "x"))).message).toContain(
        "169.254.169.254"
      )
      expect((yield* UrlPolicy.checkAddresses(new URL("https://public.example.com/"), UrlPolicy.strict, "x")).host)
        .toBe(
          "public.example.com"
        )
      expect(
        (yield* Effect.flip(UrlPolicy.checkAddresses(new URL("https://nx.example.com/"), UrlPolicy.strict, "x"))).reason
      )
        .toBe("Http")
    }).pipe(
      Effect.provide(resolvingTo({
        "auth.example.com": ["127.0.0.1"],
        "mixed.example.com": ["93.184.216.34", "169.254.169.254"],
        "public.example.com": ["93.184.216.34", "2606:2800:220:1::1"]
      }))
    ))

  it.effect("without a resolver the check stays literal (the browser)", () =>
    Effect.gen(function*() {
      const url = new URL("https://auth.example.com/token")
      expect((yield* UrlPolicy.checkAddresses(url, UrlPolicy.strict, "x")).href).toBe(url.href)
    }))

  it.effect("discovery refuses metadata on a host that resolves to loopback before fetching it", () =>
    Effect.gen(function*() {
      const http = fakeHttp(() => ({ json: { resource: "https://mcp.example.com/mcp", authorization_servers: [] } }))
      const error = yield* Effect.flip(
        Discovery.discover({ serverUrl: "https://mcp.example.com/mcp", policy: UrlPolicy.strict }).pipe(
          Effect.provide(http.layer)
        )
      )
      expect(error.reason).toBe("UnsafeUrl")
      expect(error.message).toContain("loopback")
      expect(http.seen).toEqual([])
    }).pipe(Effect.provide(resolvingTo({ "mcp.example.com": ["127.0.0.1"] }))))

  it.effect("NodeHostResolver: localhost resolves to loopback, refused unless loopback is allowed", () =>
    Effect.gen(function*() {
      const addresses = yield* NodeHostResolver.make.lookup("localhost")
      expect(addresses).toContain("127.0.0.1")
      const url = new URL("https://localhost/")
      const refused = yield* Effect.flip(UrlPolicy.checkAddresses(url, { allowedHosts: ["localhost"] }, "x"))
      expect(refused.message).toContain("(resolved to 127.0.0.1) is a loopback address")
      expect((yield* UrlPolicy.checkAddresses(url, { allowLoopback: true }, "x")).href).toBe(url.href)
    }).pipe(Effect.provide(NodeHostResolver.layer)))
})
