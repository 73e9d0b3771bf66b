// Two registries on one shared directory, as two processes have: changes made at once are all kept,
// and each registry follows the other's within a second.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NodeFileKeyValueStore from "../../src/NodeFileKeyValueStore.js"
import * as NodeTransportFactory from "../../src/NodeTransportFactory.js"
import * as ServerConfig from "../../src/ServerConfig.js"
import * as ServerRegistry from "../../src/ServerRegistry.js"

const tmp = () => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-registry-")), "store")

// disabled servers: nothing is started, the registry only keeps and shows them
const off = (name: string) => Either.getOrThrow(ServerConfig.fromEntry(name, { command: "unused", disabled: true }))

const registryIn = (directory: string, servers: ReadonlyArray<ServerConfig.ServerConfig> = []) =>
  Effect.map(
    Layer.build(
      ServerRegistry.layerStored({ servers }).pipe(
        Layer.provide(NodeTransportFactory.layer),
        Layer.provide(NodeFileKeyValueStore.layer(directory))
      )
    ),
    (context) => Context.get(context, ServerRegistry.ServerRegistry)
  )

const namesOf = (registry: ServerRegistry.Service) =>
  Effect.map(registry.servers.get, (list) => list.map((s) => `${s.name}:${s._tag}`).sort())

const eventually = (registry: ServerRegistry.Service, expected: ReadonlyArray<string>) =>
  registry.servers.changes.pipe(
    Stream.map((list) => list.map((s) => `${s.name}:${s._tag}`).sort()),
    Stream.filter((names) => JSON.stringify(names) === JSON.stringify(expected)),
    Stream.runHead,
    Effect.timeoutFail({ duration: "1 second", onTimeout: () => new Error(`never saw ${expected.join(", ")}`) })
  )

describe("ServerRegistry on a shared store", () => {
  it.scopedLive(
    "two registries adding different servers at once keep both, and each sees the other's",
    () =>
      Effect.gen(function*() {
        const directory = tmp()
        const [a, b] = yield* Effect.all([registryIn(directory), registryIn(directory)])
        yield* Effect.all([
          Effect.forEach(["a1", "a2", "a3"], (name) => a.add(off(name))),
          Effect.forEach(["b1", "b2", "b3"], (name) => b.add(off(name)))
        ], { concurrency: 2 })
        const all = ["a1", "a2", "a3", "b1", "b2", "b3"].map((name) => `${name}:Disabled`)
        yield* Effect.all([eventually(a, all), eventually(b, all)])
        // a later start finds all six
        expect(yield* Effect.scoped(Effect.flatMap(registryIn(directory), namesOf))).toEqual(all)

        // a removal and an enable in one are followed by the other
        yield* a.remove("b1")
        yield* b.enable("a2")
        const after = ["a1:Disabled", "a2:Failed", "a3:Disabled", "b2:Disabled", "b3:Disabled"]
        yield* Effect.all([eventually(a, after), eventually(b, after)])
      }),
    { timeout: 20_000 }
  )

  it.scopedLive(
    "a configured server removed in one registry goes from the other; the old one-key store is moved",
    () =>
      Effect.gen(function*() {
        const directory = tmp()
        // what an earlier version left: every change under one key
        yield* Effect.scoped(Effect.gen(function*() {
          const kv = Context.get(
            yield* Layer.build(NodeFileKeyValueStore.layer(directory)),
            KeyValueStore.KeyValueStore
          )
          yield* kv.set(ServerRegistry.defaultStoreKey, JSON.stringify({ kept: null }))
        }))
        const servers = [off("kept"), off("shared")]
        const [a, b] = yield* Effect.all([registryIn(directory, servers), registryIn(directory, servers)])
        expect(yield* namesOf(a)).toEqual(["shared:Disabled"])
        yield* a.remove("shared")
        yield* eventually(b, [])
      }),
    { timeout: 20_000 }
  )
})
