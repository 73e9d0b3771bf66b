import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { UrlPolicy } from "../src/index.js"

const verdict = (url: string, policy: UrlPolicy.UrlPolicy = UrlPolicy.strict) => UrlPolicy.violation(new URL(url), policy)

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
})
