// What both processes of the example share: the MCP server (one client each, under the name "names")
// and the continuations, kept in Redis.
import { FetchHttpClient } from "@effect/platform"
import { Continuations, McpClient } from "@mcp-effect/core"
import { RedisClient, RedisKeyValueStore } from "@mcp-effect/kv-redis"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const server = "names"

/** `Continuations` on the Redis at `REDIS_URL`: every process using it sees the same records. */
export const Durable = Layer.unwrapEffect(
  Effect.map(Config.redacted("REDIS_URL"), (url) =>
    Continuations.layer({ ttl: 5 * 60_000 }).pipe(
      Layer.provide(RedisKeyValueStore.layer({ prefix: "durable-example:" })),
      Layer.provide(RedisClient.layer({ url }))
    ))
)

/** A client of the 2026-07-28 server at `MCP_URL`. */
export const Client = Layer.unwrapEffect(
  Effect.map(
    Config.string("MCP_URL"),
    (url) =>
      McpClient.layer({ clientInfo: { name: "durable-example", version: "1.0.0" }, server }).pipe(
        Layer.provide(HttpTransport.layer({ url })),
        Layer.provide(FetchHttpClient.layer)
      )
  )
)

export const say = (line: string) => Effect.sync(() => process.stdout.write(`${line}\n`))
