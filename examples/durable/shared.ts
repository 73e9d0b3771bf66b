// What both processes of the example share: the MCP server (one client each, under the name "names")
// and the durable work, kept in Redis: the continuations, and the records of task-augmented calls.
import { FetchHttpClient } from "@effect/platform"
import { Continuations, DurableTasks, McpClient } from "@mcp-effect/core"
import { RedisClient, RedisKeyValueStore } from "@mcp-effect/kv-redis"
import { HttpTransport } from "@mcp-effect/transport-http"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const server = "names"

/**
 * `Continuations` and `DurableTasks` on the Redis at `REDIS_URL`: every process using them sees the
 * same records. Each is opt-in: a client without its Layer keeps no such record (and bundles none of its code).
 */
export const Durable = Layer.unwrapEffect(
  Effect.map(
    Config.redacted("REDIS_URL"),
    (url) =>
      Layer.merge(Continuations.layer({ ttl: 5 * 60_000 }), DurableTasks.layer).pipe(
        Layer.provide(RedisKeyValueStore.layer({ prefix: "durable-example:" })),
        Layer.provide(RedisClient.layer({ url }))
      )
  )
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
