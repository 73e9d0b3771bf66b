import { ServerConfig, ServerRegistry } from "@mcp-effect/hub"
import { NodeTransportFactory } from "@mcp-effect/hub/node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const file = {
  mcpServers: {
    files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"] },
    remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" }, trusted: true },
    socket: { url: "wss://example.com/mcp", auth: { type: "bearer", token: "${WS_TOKEN}" } },
    later: { type: "sse", url: "https://example.com/sse", disabled: true }
  }
}

const parsed = Either.getOrThrow(ServerConfig.fromJson(file))
for (const error of parsed.errors) console.warn(error.message) // one per bad server, naming the key

export const Registry = ServerRegistry.layer({ ...parsed, toolNames: "onCollision" }).pipe(
  Layer.provide(NodeTransportFactory.layer)
)

export const watch = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.servers.changes.pipe(
    Stream.runForEach((servers) => Console.log(servers.map((s) => `${s.name}=${s._tag}`).join(" ")))
  )
})

export const manage = Effect.gen(function*() {
  const registry = yield* ServerRegistry.ServerRegistry
  yield* registry.enable("later")
  yield* registry.add(Either.getOrThrow(ServerConfig.fromEntry("local", { command: "node", args: ["server.js"] })))
  yield* registry.remove("files")
  const client = yield* registry.client("remote")
  return yield* client.listResources
})
