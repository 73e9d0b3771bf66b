// Secrets of stored server configs: sealed field by field with AES-256-GCM, readable only with the key,
// bound to their server and field; the registry's stored changes carry no literal token.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import { SharedStore } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as ConfigSealer from "../src/ConfigSealer.js"
import * as NodeTransportFactory from "../src/NodeTransportFactory.js"
import * as ServerConfig from "../src/ServerConfig.js"
import * as ServerRegistry from "../src/ServerRegistry.js"
import { statusesWhere } from "./fixtures/registry.js"

const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
const otherKey = Redacted.make(Buffer.alloc(32, 8).toString("base64"))
const headerToken = "header-token-secret-0123456789"
const envToken = "env-token-secret-0123456789"
const urlKey = "url-key-secret-0123456789"
const authToken = "auth-token-secret-0123456789"
const secrets = [headerToken, envToken, urlKey, authToken]

const remote = Either.getOrThrow(ServerConfig.fromEntry("remote", {
  url: `https://mcp.example.com/mcp?api_key=${urlKey}`,
  headers: { Authorization: `Bearer ${headerToken}` },
  auth: { type: "bearer", token: authToken },
  disabled: true
}))
const local = Either.getOrThrow(ServerConfig.fromEntry("local", {
  command: "node",
  args: ["server.js", "--verbose"],
  env: { TOKEN: envToken, REF: "${FROM_ENV}" },
  disabled: true
}))

describe("ConfigSealer", () => {
  it.effect("seals env, headers, a URL with a query and auth secrets; unseal gives the config back", () =>
    Effect.gen(function*() {
      const sealer = yield* ConfigSealer.make(key)
      for (const config of [remote, local]) {
        const sealed = yield* sealer.seal(config)
        const text = JSON.stringify(sealed)
        for (const secret of secrets) expect(text).not.toContain(secret)
        expect(sealed.name).toBe(config.name)
        expect(yield* sealer.unseal(sealed)).toEqual(config)
        // sealing twice changes nothing; a plain record opens as it is
        expect(yield* sealer.seal(sealed)).toEqual(sealed)
        expect(yield* sealer.unseal(config)).toEqual(config)
      }
      const sealedLocal = yield* sealer.seal(local)
      expect(sealedLocal.transport._tag === "Stdio" && sealedLocal.transport.args).toEqual(["server.js", "--verbose"])
      expect(sealedLocal.transport._tag === "Stdio" && ConfigSealer.isSealed(sealedLocal.transport.env.TOKEN!)).toBe(
        true
      )
    }))

  it.effect("another key, or a sealed value moved to another server, cannot be opened", () =>
    Effect.gen(function*() {
      const sealed = yield* (yield* ConfigSealer.make(key)).seal(remote)
      const wrongKey = yield* Effect.flip((yield* ConfigSealer.make(otherKey)).unseal(sealed))
      expect(wrongKey.message).toContain("cannot be opened")
      const moved = yield* Effect.flip((yield* ConfigSealer.make(key)).unseal({ ...sealed, name: "elsewhere" }))
      expect(moved._tag).toBe("ConfigSealError")
      for (const secret of secrets) expect(wrongKey.message + moved.message).not.toContain(secret)
      expect((yield* Effect.flip(ConfigSealer.make(Redacted.make("short")))).message).toContain("32 bytes")
    }))

  it.scopedLive("the registry's stored changes hold sealed secrets, and a restart reads them", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const stored = Layer.build(
        ServerRegistry.layerStored({ servers: [], reconnect: { schedule: Schedule.stop } }).pipe(
          Layer.provide(NodeTransportFactory.layer),
          Layer.provide(Layer.succeed(KeyValueStore.KeyValueStore, kv)),
          Layer.provide(ConfigSealer.layer(key))
        )
      ).pipe(Effect.map((c) => c.unsafeMap.get(ServerRegistry.ServerRegistry.key) as ServerRegistry.Service))
      yield* Effect.scoped(Effect.gen(function*() {
        const registry = yield* stored
        yield* registry.add(remote)
        yield* registry.add(local)
      }))
      const records = yield* SharedStore.fromKeyValueStore(kv).collection(ServerRegistry.defaultStoreKey).list
      expect(records.map(([name]) => name).sort()).toEqual(["local", "remote"])
      const bytes = records.map(([, text]) => text).join("\n")
      for (const secret of secrets) expect(bytes).not.toContain(secret)
      expect(bytes).toContain("${FROM_ENV}")

      const statuses = yield* statusesWhere(yield* stored, (s) => s.size === 2)
      expect([...statuses.values()].map((s) => [s.name, s._tag]).sort()).toEqual([["local", "Disabled"], [
        "remote",
        "Disabled"
      ]])
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})
