import { NodeHub } from "@mcp-effect/hub/node"
import { RedisClient, RedisKeyValueStore, RedisTokenStore } from "@mcp-effect/kv-redis"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// every app process: same Redis, same sealing key -> shared servers, approvals, history and tokens
export const Hub = Layer.unwrapEffect(
  Effect.gen(function*() {
    const redis = RedisClient.layer({ url: yield* Config.redacted("REDIS_URL") })
    const key = yield* Config.redacted("TOKEN_KEY") // 32 bytes, base64
    return NodeHub.layer({
      config: "mcp.json",
      storage: RedisKeyValueStore.layer().pipe(Layer.provide(redis)),
      tokens: RedisTokenStore.layer({ key }).pipe(Layer.provide(redis))
    })
  })
)
