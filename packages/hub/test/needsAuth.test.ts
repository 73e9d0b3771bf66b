// An OAuth-protected server (the real oidc-provider and the SDK fixture it guards) in a registry
// with nobody to sign in: it ends in NeedsAuth while the others run; with an authorizer, it connects.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { browserFor, protectedServer } from "../../oauth/test/fixtures/harness.js"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import type * as TransportFactory from "../src/TransportFactory.js"
import { httpFixture } from "./fixtures/httpServer.js"

const statusOf = (registry: ServerRegistry.Service, name: string, done: (s: ServerRegistry.ServerStatus) => boolean) =>
  registry.servers.changes.pipe(
    Stream.map((list) => list.find((s) => s.name === name)!),
    Stream.filter(done),
    Stream.runHead,
    Effect.flatten,
    Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error(`${name} never settled`) })
  )

const registryWith = (
  servers: ReadonlyArray<ServerConfig.ServerConfig>,
  factory: Layer.Layer<TransportFactory.TransportFactory>
) =>
  Effect.map(
    Layer.build(ServerRegistry.layer({ servers, reconnect: { schedule: Schedule.stop } }).pipe(Layer.provide(factory))),
    (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
  )

describe("ServerRegistry with OAuth servers", () => {
  it.scopedLive(
    "nobody to sign in: NeedsAuth, the other server runs; an authorizer connects it",
    () =>
      Effect.gen(function*() {
        const { auth, mcp } = yield* protectedServer()
        const web = yield* httpFixture
        const servers = [
          Either.getOrThrow(ServerConfig.fromEntry("guarded", { url: mcp.url, auth: { type: "oauth2" } })),
          Either.getOrThrow(ServerConfig.fromEntry("web", { url: web.url }))
        ]
        const registry = yield* registryWith(servers, NodeTransportFactory.layer)
        const guarded = yield* statusOf(
          registry,
          "guarded",
          (s) => s._tag !== "Connecting" && s._tag !== "Reconnecting"
        )
        expect(guarded._tag).toBe("NeedsAuth")
        expect(guarded.lastError?._tag).toBe("Unauthorized")
        expect(
          (yield* statusOf(registry, "web", (s) => s.toolCount > 0))._tag
        ).toBe("Connected")

        const signedIn = yield* registryWith(
          servers,
          NodeTransportFactory.layer.pipe(Layer.provide(browserFor(auth)))
        )
        const connected = yield* statusOf(signedIn, "guarded", (s) => s._tag === "Connected" && s.toolCount > 0)
        expect(connected.toolCount).toBe(2)
        expect(auth.grants).toEqual(["authorization_code"])
      }),
    { timeout: 60_000 }
  )
})
