import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ClientSession from "../src/ClientSession.js"
import * as McpClient from "../src/McpClient.js"
import * as McpError from "../src/McpError.js"
import * as McpSchema from "../src/McpSchema.js"
import * as ProtocolEra from "../src/ProtocolEra.js"
import * as ProtocolEra2025 from "../src/ProtocolEra2025.js"
import * as ProtocolEra2026 from "../src/ProtocolEra2026.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo } from "./utils.js"

const MODERN = McpSchema.MODERN_PROTOCOL_VERSION
const LEGACY = McpSchema.LATEST_PROTOCOL_VERSION

const tools = { "tools/list": () => Effect.succeed({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }) }

const methodsReceived = Effect.map(
  Effect.flatMap(TestServer.TestServer, (server) => server.received),
  (messages) => messages.flatMap((m) => "method" in m ? [m.method] : [])
)

/** A client made with only `eras`, on a test server of `era`. */
const pinned = (
  eras: ReadonlyArray<ProtocolEra.ProtocolEra>,
  era: TestServer.Options["era"],
  options: Partial<McpClient.Options> = {}
) =>
  McpClient.layerWith(eras, { clientInfo, prefetch: false, ...options }).pipe(
    Layer.provideMerge(TestServer.layer({ era, handlers: tools }))
  )

describe("the protocol eras as values", () => {
  it("each value is its era, with the versions it speaks", () => {
    expect(ProtocolEra.isProtocolEra(ProtocolEra2025.era)).toBe(true)
    expect(ProtocolEra.isProtocolEra({ era: "legacy", versions: [] })).toBe(false)
    expect(ProtocolEra2025.era).toMatchObject({ era: "legacy", versions: McpSchema.SUPPORTED_PROTOCOL_VERSIONS })
    expect(ProtocolEra2026.era).toMatchObject({ era: "modern", versions: McpSchema.MODERN_PROTOCOL_VERSIONS })
  })

  it.effect("a client of the 2025 era opens with initialize and never probes", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe(LEGACY)
      yield* client.listTools
      yield* client.ping
      expect(yield* methodsReceived).toEqual(["initialize", "notifications/initialized", "tools/list", "ping"])
    }).pipe(Effect.provide(pinned([ProtocolEra2025.era], "both"))))

  it.effect("a client of the 2026 era opens with server/discover and its liveness check is server/discover", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe(MODERN)
      yield* client.listTools
      yield* client.ping
      expect(yield* methodsReceived).toEqual(["server/discover", "tools/list", "server/discover"])
    }).pipe(Effect.provide(pinned([ProtocolEra2026.era], "both"))))

  it.effect("both values offer what `layer` offers: the 2026 era first, the 2025 era after it", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.initialized).protocolVersion).toBe(LEGACY)
      expect(yield* methodsReceived).toEqual(["server/discover", "initialize", "notifications/initialized"])
    }).pipe(Effect.provide(pinned([ProtocolEra2025.era, ProtocolEra2026.era], "legacy"))))

  it.effect("a 2026 client refuses a server of only the 2025 era with a ProtocolError naming what it offers", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error).toMatchObject({ _tag: "ProtocolError", method: "server/discover" })
      expect(error.message).toContain(`this session offers only ${MODERN}`)
      expect(yield* methodsReceived).not.toContain("initialize")
    }).pipe(Effect.provide(pinned([ProtocolEra2026.era], "legacy", { initializeTimeout: "3 seconds" }))))

  it.effect("a 2025 client refuses a server of only the 2026 era with a ProtocolError naming both sides' versions", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.initialized)
      expect(error).toMatchObject({ _tag: "ProtocolError", code: McpError.ErrorCode.UnsupportedProtocolVersion })
      expect(error.message).toContain(`this client offered ${LEGACY}`)
      expect(error.message).toContain(`the server supports ${MODERN}`)
      expect(yield* methodsReceived).not.toContain("server/discover")
    }).pipe(Effect.provide(pinned([ProtocolEra2025.era], "modern"))))

  it.effect("options that name an era the session was not made with close it with a typed options error", () =>
    Effect.gen(function*() {
      const session = yield* ClientSession.ClientSession
      const error = yield* Effect.flip(session.initialized)
      expect(error).toMatchObject({ _tag: "TransportError", phase: "options" })
      expect(error.message).toContain("not made with this era")
    }).pipe(
      Effect.provide(
        ClientSession.layerWith([ProtocolEra2025.era], { clientInfo, era: "modern" }).pipe(
          Layer.provideMerge(TestServer.layer({ era: "both", handlers: tools }))
        )
      )
    ))

  it.effect("no era at all closes the session with a typed options error", () =>
    Effect.gen(function*() {
      const session = yield* ClientSession.ClientSession
      expect(yield* Effect.flip(session.initialized)).toMatchObject({ _tag: "TransportError", phase: "options" })
    }).pipe(
      Effect.provide(
        ClientSession.layerWith([], { clientInfo }).pipe(Layer.provideMerge(TestServer.layer({ handlers: tools })))
      )
    ))
})
