// Stored server configs on the Node file store are sealed by default, with a key the store keeps
// owner-only in its directory: no byte under the directory holds a secret, a restart opens them.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ConfigSealer from "../../src/ConfigSealer.js"
import * as NodeFileKeyValueStore from "../../src/NodeFileKeyValueStore.js"
import * as NodeHub from "../../src/NodeHub.js"
import * as ServerConfig from "../../src/ServerConfig.js"
import * as ServerRegistry from "../../src/ServerRegistry.js"
import * as TransportFactory from "../../src/TransportFactory.js"
import { memoryFactory } from "../fixtures/memoryFactory.js"
import { statusesWhere } from "../fixtures/registry.js"

const headerToken = "sealed-header-token-0123456789"
const urlKey = "sealed-url-key-0123456789"
const envToken = "sealed-env-token-0123456789"
const secrets = [headerToken, urlKey, envToken]

const remote = Either.getOrThrow(ServerConfig.fromEntry("remote", {
  url: `https://mcp.example.com/mcp?api_key=${urlKey}`,
  headers: { Authorization: `Bearer ${headerToken}` }
}))
const local = Either.getOrThrow(ServerConfig.fromEntry("local", { command: "node", env: { TOKEN: envToken } }))

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-sealed-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
)

/** Every file under a directory: its path and its bytes. */
const filesUnder = (directory: string): ReadonlyArray<readonly [path: string, bytes: string]> =>
  Fs.readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = Path.join(entry.parentPath, entry.name)
      return [Path.relative(directory, path), Fs.readFileSync(path, "latin1")] as const
    })

/** The in-memory test servers, recording the resolved config each transport is built from. */
const recordingFactory = (seen: Map<string, ServerConfig.Resolved>) =>
  Layer.effect(
    TransportFactory.TransportFactory,
    Effect.map(Effect.map(Layer.build(memoryFactory({})), Context.get(TransportFactory.TransportFactory)), (inner) => ({
      make: (config: ServerConfig.Resolved, options?: TransportFactory.MakeOptions) => {
        seen.set(config.name, config)
        return inner.make(config, options)
      }
    }))
  )

/** A registry on the file store in `directory`; `around` is provided around it all (as an app provides around a hub). */
const registryIn = (
  directory: string,
  seen: Map<string, ServerConfig.Resolved>,
  options?: NodeFileKeyValueStore.Options,
  around: Layer.Layer<never> | Layer.Layer<ConfigSealer.ConfigSealer, ConfigSealer.ConfigSealError> = Layer.empty
) =>
  Effect.map(
    Layer.build(
      ServerRegistry.layerStored({ servers: [] }).pipe(
        Layer.provide(recordingFactory(seen)),
        Layer.provideMerge(NodeFileKeyValueStore.layer(directory, options)),
        Layer.provide(around)
      )
    ),
    (context) => ({
      registry: Context.get(context, ServerRegistry.ServerRegistry),
      kv: Context.get(context, KeyValueStore.KeyValueStore)
    })
  )

const connected = (registry: ServerRegistry.Service) =>
  statusesWhere(
    registry,
    (statuses) => statuses.size === 2 && [...statuses.values()].every((s) => s._tag === "Connected")
  )

const storedRecords = (directory: string) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(NodeFileKeyValueStore.layer(directory, { sealConfigs: false })), (context) =>
      Context.get(context, SharedStore.SharedStore).collection(ServerRegistry.defaultStoreKey).list)
  )

describe("NodeFileKeyValueStore seals stored server configs", () => {
  it.scopedLive(
    "by default: no file holds a secret, the key file is owner-only, a restart connects with the real values",
    () =>
      Effect.gen(function*() {
        const directory = Path.join(yield* temporaryDirectory, "store")
        yield* Effect.scoped(Effect.gen(function*() {
          const { kv, registry } = yield* registryIn(directory, new Map())
          yield* registry.add(remote)
          yield* registry.add(local)
          yield* connected(registry)
          // the key file is no key of the KeyValueStore: not counted, not cleared
          expect(yield* kv.size).toBe(0)
          yield* kv.clear
        }))
        const files = filesUnder(directory)
        expect(files.map(([path]) => path)).toContain(NodeFileKeyValueStore.keyFile)
        for (const [path, bytes] of files) {
          for (const secret of secrets) expect(`${path}\n${bytes}`).not.toContain(secret)
        }
        expect(Fs.statSync(Path.join(directory, NodeFileKeyValueStore.keyFile)).mode & 0o777).toBe(0o600)
        const records = yield* storedRecords(directory)
        expect(records.map(([name]) => name)).toEqual(["local", "remote"])
        expect(records.every(([, text]) => text.includes("mcp-effect:sealed:v1:"))).toBe(true)

        // a restart on the same directory opens them: the transports are built from the real values
        const seen = new Map<string, ServerConfig.Resolved>()
        const { registry } = yield* registryIn(directory, seen)
        yield* connected(registry)
        const built = seen.get("remote")?.transport
        expect(built?._tag === "Http" && built.url.searchParams.get("api_key")).toBe(urlKey)
        expect(built?._tag === "Http" && Redacted.value(built.headers.Authorization!)).toBe(`Bearer ${headerToken}`)
        const process = seen.get("local")?.transport
        expect(process?._tag === "Stdio" && process.env.TOKEN).toBe(envToken)
      }),
    { timeout: 20_000 }
  )

  it.scopedLive(
    "a ConfigSealer the app provides around it wins, and no key file is made",
    () =>
      Effect.gen(function*() {
        const directory = Path.join(yield* temporaryDirectory, "store")
        const key = Redacted.make(Buffer.alloc(32, 4).toString("base64"))
        yield* Effect.scoped(Effect.gen(function*() {
          const { registry } = yield* registryIn(directory, new Map(), undefined, ConfigSealer.layer(key))
          yield* registry.add(remote)
          yield* registry.add(local)
        }))
        expect(Fs.existsSync(Path.join(directory, NodeFileKeyValueStore.keyFile))).toBe(false)
        const bytes = (yield* storedRecords(directory)).map(([, text]) => text).join("\n")
        for (const secret of secrets) expect(bytes).not.toContain(secret)
        // sealed with the app's key: a restart with it connects with the real values
        const seen = new Map<string, ServerConfig.Resolved>()
        yield* connected((yield* registryIn(directory, seen, undefined, ConfigSealer.layer(key))).registry)
        const process = seen.get("local")?.transport
        expect(process?._tag === "Stdio" && process.env.TOKEN).toBe(envToken)
      }),
    { timeout: 20_000 }
  )

  it.scopedLive(
    "with sealConfigs: false, configs are stored as given and no key file is made",
    () =>
      Effect.gen(function*() {
        const directory = Path.join(yield* temporaryDirectory, "store")
        yield* Effect.scoped(Effect.gen(function*() {
          const { registry } = yield* registryIn(directory, new Map(), { sealConfigs: false })
          yield* registry.add(remote)
          yield* registry.add(local)
        }))
        expect(Fs.existsSync(Path.join(directory, NodeFileKeyValueStore.keyFile))).toBe(false)
        const bytes = (yield* storedRecords(directory)).map(([, text]) => text).join("\n")
        for (const secret of secrets) expect(bytes).toContain(secret)
      }),
    { timeout: 20_000 }
  )

  it.scopedLive("a key file that holds no key fails the Layer as a SystemError without quoting it", () =>
    Effect.gen(function*() {
      const directory = Path.join(yield* temporaryDirectory, "store")
      Fs.mkdirSync(directory, { mode: 0o700 })
      Fs.writeFileSync(Path.join(directory, NodeFileKeyValueStore.keyFile), "not-a-key-but-secret", { mode: 0o600 })
      const error = yield* Effect.flip(Layer.build(NodeFileKeyValueStore.layer(directory)))
      expect(error._tag).toBe("SystemError")
      expect(error.message).toContain("key")
      expect(error.message).not.toContain("not-a-key-but-secret")
    }))

  it.scopedLive(
    "NodeHub on the file store seals an added server's secrets, and reads it back after a restart",
    () =>
      Effect.gen(function*() {
        const directory = Path.join(yield* temporaryDirectory, "store")
        const hub = Effect.map(
          Layer.build(NodeHub.layer({ storage: NodeFileKeyValueStore.layer(directory) })),
          Context.get(ServerRegistry.ServerRegistry)
        )
        const disabled = Either.getOrThrow(ServerConfig.fromEntry("remote", {
          url: `https://mcp.example.com/mcp?api_key=${urlKey}`,
          headers: { Authorization: `Bearer ${headerToken}` },
          disabled: true
        }))
        yield* Effect.scoped(Effect.flatMap(hub, (registry) => registry.add(disabled)))
        for (const [path, bytes] of filesUnder(directory)) {
          for (const secret of secrets) expect(`${path}\n${bytes}`).not.toContain(secret)
        }
        const statuses = yield* statusesWhere(yield* hub, (s) => s.size === 1)
        expect([...statuses.values()].map((s) => [s.name, s._tag])).toEqual([["remote", "Disabled"]])
      }),
    { timeout: 20_000 }
  )
})
