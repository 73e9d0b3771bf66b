import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { HttpAuth } from "../src/index.js"

const parse = HttpAuth.parseWwwAuthenticate

describe("parseWwwAuthenticate", () => {
  it("reads a bearer challenge with quoted and token values", () => {
    expect(parse("Bearer realm=\"example\", error=invalid_token, error_description=\"The token expired\"")).toEqual([
      { scheme: "Bearer", params: { realm: "example", error: "invalid_token", error_description: "The token expired" } }
    ])
  })

  it("keeps the MCP parameters (scope, resource_metadata)", () => {
    const [challenge] = parse(
      "Bearer error=\"insufficient_scope\", scope=\"files:read files:write\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\""
    )
    expect(challenge!.params.scope).toBe("files:read files:write")
    expect(challenge!.params.resource_metadata).toBe("https://mcp.example.com/.well-known/oauth-protected-resource")
  })

  it("splits several challenges and lower-cases parameter names", () => {
    expect(parse("Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic REALM=\"simple\"")).toEqual([
      { scheme: "Newauth", params: { realm: "apps", type: "1", title: "Login to \"apps\"" } },
      { scheme: "Basic", params: { realm: "simple" } }
    ])
  })

  it("reads token68 challenges and bare schemes", () => {
    expect(parse("Negotiate abc123==, Bearer")).toEqual([
      { scheme: "Negotiate", params: {}, token68: "abc123==" },
      { scheme: "Bearer", params: {} }
    ])
  })

  it("tolerates odd spacing, commas inside quotes and empty input", () => {
    expect(parse("  Bearer   realm = \"a, b\" ,  scope=\"x\"  ")).toEqual([
      { scheme: "Bearer", params: { realm: "a, b", scope: "x" } }
    ])
    expect(parse("")).toEqual([])
    expect(parse(",,")).toEqual([])
  })

  it("stops at garbage without looping", () => {
    expect(parse("Bearer realm=\"unterminated")).toEqual([{ scheme: "Bearer", params: { realm: "unterminated" } }])
    expect(parse("\"quoted\" Bearer")).toEqual([])
  })
})

describe("parseWwwAuthenticate under fuzz (fast-check, seeded)", () => {
  it("never throws; parameters are own data, whatever their names", () => {
    const piece = fc.constantFrom(
      "Bearer",
      "Basic",
      " ",
      ",",
      "=",
      "\"",
      "\\",
      "realm",
      "__proto__",
      "constructor",
      "a",
      "==",
      "\t"
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 30 }), (parts) => {
        for (const challenge of HttpAuth.parseWwwAuthenticate(parts.join(""))) {
          expect(Object.getPrototypeOf(challenge.params)).toBe(Object.prototype)
          for (const value of Object.values(challenge.params)) expect(typeof value).toBe("string")
        }
      }),
      { seed: 5, numRuns: 1000 }
    )
    const polluted = HttpAuth.parseWwwAuthenticate("Bearer __proto__=\"x\", constructor=y")[0]!
    expect(polluted.params).toEqual({ ["__proto__"]: "x", constructor: "y" })
    expect(HttpAuth.parseWwwAuthenticate(undefined as unknown as string)).toEqual([])
  })
})
