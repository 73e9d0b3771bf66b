import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import type * as ClientSession from "../src/ClientSession.js"
import * as Discover from "../src/internal/era/discover.js"
import * as Negotiation from "../src/internal/era/negotiation.js"
import * as McpError from "../src/McpError.js"
import { clientInfo } from "./utils.js"

const MODERN = "2026-07-28"
const LEGACY = "2025-11-25"

const both = [{ era: "modern" }, { era: "legacy" }] as const

const offer = (options: Pick<ClientSession.Options, "era" | "protocolVersion">) =>
  Either.getOrThrow(Negotiation.offerOf(options, both))

const refused = (supported: ReadonlyArray<string>) =>
  new McpError.ProtocolError({
    code: McpError.ErrorCode.UnsupportedProtocolVersion,
    message: "Unsupported protocol version",
    data: { supported, requested: MODERN },
    method: "server/discover"
  })

describe("what a session offers", () => {
  it("by default: the modern version first, 2025-11-25 through initialize after it", () => {
    expect(offer({})).toEqual({ modern: [MODERN], legacy: LEGACY })
  })

  it("an era narrows the offer; a pinned version decides the era", () => {
    expect(offer({ era: "modern" })).toEqual({ modern: [MODERN], legacy: undefined })
    expect(offer({ era: "legacy" })).toEqual({ modern: [], legacy: LEGACY })
    expect(offer({ protocolVersion: MODERN })).toEqual({ modern: [MODERN], legacy: undefined })
    expect(offer({ protocolVersion: "2025-06-18" })).toEqual({ modern: [], legacy: "2025-06-18" })
  })

  it("a pinned version of the other era than the pinned era is a typed options error", () => {
    const result = Negotiation.offerOf({ era: "modern", protocolVersion: "2025-06-18" }, both)
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "TransportError", phase: "options" })
  })

  it("a session made with one era offers only that era's versions", () => {
    expect(Either.getOrThrow(Negotiation.offerOf({}, [{ era: "modern" }]))).toEqual({
      modern: [MODERN],
      legacy: undefined
    })
    expect(Either.getOrThrow(Negotiation.offerOf({}, [{ era: "legacy" }]))).toEqual({ modern: [], legacy: LEGACY })
    expect(Either.getOrThrow(Negotiation.offerOf({ era: "auto" }, [{ era: "legacy" }]))).toEqual({
      modern: [],
      legacy: LEGACY
    })
  })

  it("no era, or an era or pinned version the session was not made with, is a typed options error", () => {
    for (
      const [options, eras] of [
        [{}, []],
        [{ era: "modern" }, [{ era: "legacy" }]],
        [{ era: "legacy" }, [{ era: "modern" }]],
        [{ protocolVersion: MODERN }, [{ era: "legacy" }]],
        [{ protocolVersion: "2025-06-18" }, [{ era: "modern" }]]
      ] as const
    ) {
      const result = Negotiation.offerOf(options, eras)
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "TransportError", phase: "options" })
    }
  })
})

describe("choosing a version from what the server lists", () => {
  const table: ReadonlyArray<[string, ReadonlyArray<string>, string | undefined]> = [
    ["both eras: the modern one", [LEGACY, MODERN], MODERN],
    ["modern only", [MODERN], MODERN],
    ["legacy only: the newest legacy version", ["2025-03-26", "2025-06-18"], "2025-06-18"],
    ["nothing in common", ["1999-01-01"], undefined],
    ["nothing listed", [], undefined]
  ]
  for (const [name, supported, expected] of table) {
    it(name, () => expect(Negotiation.choose(offer({}), supported)).toBe(expected))
  }

  it("a pinned era only chooses its own versions", () => {
    expect(Negotiation.choose(offer({ era: "modern" }), [LEGACY])).toBeUndefined()
    expect(Negotiation.choose(offer({ era: "legacy" }), [MODERN, LEGACY])).toBe(LEGACY)
    expect(Negotiation.choose(offer({ protocolVersion: "2025-06-18" }), [LEGACY])).toBeUndefined()
  })
})

describe("telling the eras apart by how a probe fails", () => {
  const classify = (error: McpError.McpClientError) => Negotiation.classify(offer({}), MODERN, error)._tag
  const protocol = (code: number) => new McpError.ProtocolError({ code, message: "no" })

  it("any JSON-RPC error a modern server would not send means a legacy server (never keyed to one code)", () => {
    expect(classify(protocol(McpError.ErrorCode.MethodNotFound))).toBe("Legacy")
    expect(classify(protocol(McpError.ErrorCode.InvalidParams))).toBe("Legacy")
    expect(classify(protocol(-32000))).toBe("Legacy")
  })

  it("no answer in time means a legacy server", () => {
    expect(classify(new McpError.RequestTimeout({ method: "server/discover", kind: "idle", millis: 1 }))).toBe("Legacy")
  })

  it("an HTTP 4xx without a modern error body means a legacy server; 401 and a broken link do not", () => {
    expect(classify(new McpError.TransportError({ reason: "Http", status: 400, message: "400" }))).toBe("Legacy")
    expect(classify(new McpError.TransportError({ reason: "Http", status: 404, message: "404" }))).toBe("Legacy")
    expect(classify(new McpError.TransportError({ reason: "Http", status: 401, message: "401" }))).toBe("Lost")
    expect(classify(new McpError.TransportError({ reason: "Closed", message: "gone" }))).toBe("Lost")
    expect(classify(new McpError.Unauthorized({ message: "no" }))).toBe("Fatal")
  })

  it("a probe a browser blocked (CORS without the Mcp-* headers) means a legacy server; a refused connection does not", () => {
    expect(classify(new McpError.TransportError({ reason: "Connect", phase: "modern-blocked", message: "blocked" })))
      .toBe("Legacy")
    expect(classify(new McpError.TransportError({ reason: "Connect", phase: "post", message: "refused" }))).toBe("Lost")
  })

  it("-32022 names the versions to retry with; other modern codes end the session", () => {
    expect(Negotiation.classify(offer({}), MODERN, refused([MODERN]))).toEqual({ _tag: "Retry", version: MODERN })
    expect(Negotiation.classify(offer({}), MODERN, refused([LEGACY]))).toEqual({ _tag: "Retry", version: LEGACY })
    const none = Negotiation.classify(offer({}), MODERN, refused(["1999-01-01"]))
    expect(none._tag).toBe("Fatal")
    expect(none._tag === "Fatal" && none.error.message).toContain("the server supports 1999-01-01")
    expect(classify(protocol(McpError.ErrorCode.HeaderMismatch))).toBe("Fatal")
    expect(classify(protocol(McpError.ErrorCode.MissingRequiredClientCapability))).toBe("Fatal")
  })
})

describe("the server/discover handshake", () => {
  const identity = { clientInfo, capabilities: { elicitation: {} } }

  /** A fake connection: answers each request from the script, recording what was sent. */
  const scripted = (answers: ReadonlyArray<Effect.Effect<unknown, McpError.McpClientError>>) => {
    const sent: Array<{ method: string; params: Record<string, unknown> }> = []
    const request: Discover.Request = (method, params) =>
      Effect.suspend(() => {
        sent.push({ method, params })
        return answers[sent.length - 1] ?? Effect.never
      })
    return { sent, request }
  }

  const discovered = (versions: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
    Effect.succeed({
      resultType: "complete",
      supportedVersions: versions,
      capabilities: { tools: { listChanged: true } },
      instructions: "be kind",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern-server", version: "2.0.0" } },
      ...extra
    })

  it.effect("a modern server: Initialized from the discover result, the probe carrying the modern _meta", () =>
    Effect.gen(function*() {
      const { request, sent } = scripted([discovered([MODERN, LEGACY])])
      const outcome = yield* Discover.discover(request, offer({}), identity, "5 seconds")
      expect(outcome).toEqual({
        _tag: "Modern",
        initialized: {
          protocolVersion: MODERN,
          serverInfo: { name: "modern-server", version: "2.0.0" },
          capabilities: { tools: { listChanged: true } },
          instructions: "be kind",
          supportedVersions: [MODERN, LEGACY]
        }
      })
      expect(sent).toEqual([{
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": clientInfo,
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
          }
        }
      }])
    }))

  it.effect("a serverInfo beside the result (not in _meta) is read too", () =>
    Effect.gen(function*() {
      const { request } = scripted([
        Effect.succeed({ supportedVersions: [MODERN], capabilities: {}, serverInfo: { name: "mock", version: "1" } })
      ])
      const outcome = yield* Discover.discover(request, offer({}), identity, "5 seconds")
      expect(outcome._tag === "Modern" && outcome.initialized.serverInfo).toEqual({ name: "mock", version: "1" })
    }))

  it.effect("-32022 naming a modern version: the probe is sent again with it", () =>
    Effect.gen(function*() {
      const { request, sent } = scripted([Effect.fail(refused([MODERN])), discovered([MODERN])])
      const outcome = yield* Discover.discover(request, offer({}), identity, "5 seconds")
      expect(outcome._tag).toBe("Modern")
      expect(sent.map((s) => (s.params._meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"]))
        .toEqual([MODERN, MODERN])
    }))

  it.effect("a server that keeps refusing is given up after a few probes, with the refusal", () =>
    Effect.gen(function*() {
      const { request, sent } = scripted([1, 2, 3, 4].map(() => Effect.fail(refused([MODERN]))))
      const exit = yield* Effect.exit(Discover.discover(request, offer({}), identity, "5 seconds"))
      expect(exit).toEqual(Exit.fail(refused([MODERN])))
      expect(sent.length).toBe(3)
    }))

  it.effect("-32022 naming only legacy versions: initialize with the newest of them", () =>
    Effect.gen(function*() {
      const { request } = scripted([Effect.fail(refused(["2025-06-18"]))])
      expect(yield* Discover.discover(request, offer({}), identity, "5 seconds")).toEqual({
        _tag: "Legacy",
        version: "2025-06-18"
      })
    }))

  it.effect("method not found: a legacy server, initialize offering 2025-11-25", () =>
    Effect.gen(function*() {
      const { request } = scripted([
        Effect.fail(new McpError.ProtocolError({ code: McpError.ErrorCode.MethodNotFound, message: "nope" }))
      ])
      expect(yield* Discover.discover(request, offer({}), identity, "5 seconds")).toEqual({
        _tag: "Legacy",
        version: LEGACY
      })
    }))

  it.effect("pinned to the modern era, a legacy server is a ProtocolError that says so", () =>
    Effect.gen(function*() {
      const { request } = scripted([
        Effect.fail(new McpError.ProtocolError({ code: McpError.ErrorCode.MethodNotFound, message: "nope" }))
      ])
      const error = yield* Effect.flip(Discover.discover(request, offer({ era: "modern" }), identity, "5 seconds"))
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.MethodNotFound })
      expect(error.message).toContain("does not speak the modern era")
    }))

  it.effect("a broken connection is not mistaken for a legacy server", () =>
    Effect.gen(function*() {
      const lost = new McpError.TransportError({ reason: "Closed", message: "gone" })
      const { request } = scripted([Effect.fail(lost)])
      expect(yield* Effect.flip(Discover.discover(request, offer({}), identity, "5 seconds"))).toBe(lost)
    }))

  it.effect("a result that is no DiscoverResult: a legacy server, or a DecodeError when pinned to the modern era", () =>
    Effect.gen(function*() {
      const { request } = scripted([Effect.succeed({ capabilities: {} }), Effect.succeed({ capabilities: {} })])
      expect(yield* Discover.discover(request, offer({}), identity, "5 seconds")).toEqual({
        _tag: "Legacy",
        version: LEGACY
      })
      const error = yield* Effect.flip(Discover.discover(request, offer({ era: "modern" }), identity, "5 seconds"))
      expect(error).toMatchObject({ _tag: "DecodeError", method: "server/discover" })
    }))

  it.effect("a server listing only legacy versions in its result gets initialize", () =>
    Effect.gen(function*() {
      const { request } = scripted([discovered([LEGACY])])
      expect(yield* Discover.discover(request, offer({}), identity, "5 seconds")).toEqual({
        _tag: "Legacy",
        version: LEGACY
      })
    }))

  it.effect("the probe's timeout is passed to the request (a legacy server that stays silent)", () =>
    Effect.gen(function*() {
      const seen: Array<ClientSession.RequestOptions> = []
      const request: Discover.Request = (_method, _params, options) =>
        Effect.suspend(() => {
          seen.push(options)
          return Effect.fail(new McpError.RequestTimeout({ method: "server/discover", kind: "idle", millis: 5000 }))
        }).pipe(Effect.delay("5 seconds"))
      const fiber = yield* Effect.fork(Discover.discover(request, offer({}), identity, "5 seconds"))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toEqual({ _tag: "Legacy", version: LEGACY })
      expect(seen).toEqual([{ timeout: "5 seconds", replay: false, resetTimeoutOnProgress: false }])
    }))
})
