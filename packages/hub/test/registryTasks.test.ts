// The registry's task methods name a server: one it does not have is a typed error, nothing is sent.
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"

const registry = Effect.map(
  Layer.build(
    ServerRegistry.layer(Either.getOrThrow(ServerConfig.fromJson({ mcpServers: {} }))).pipe(
      Layer.provide(NodeTransportFactory.layer)
    )
  ),
  (context) => context.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service
)

describe("ServerRegistry tasks", () => {
  it.scoped("resumeTask, cancelTask and durableTasks of an unknown server fail with UnknownServer", () =>
    Effect.gen(function*() {
      const hub = yield* registry
      const errors = yield* Effect.all([
        Effect.flip(Stream.runDrain(hub.resumeTask("nowhere", "t1"))),
        Effect.flip(hub.cancelTask("nowhere", "t1")),
        Effect.flip(hub.durableTasks("nowhere"))
      ])
      for (const error of errors) expect(error).toMatchObject({ _tag: "RegistryError", reason: "UnknownServer" })
    }))
})
