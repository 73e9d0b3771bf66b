// The SharedStore contract on the Node file store: two stores on one directory, as two processes have.
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as SharedStore from "@mcp-effect/core/SharedStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Pair, sharedStoreContract } from "../../../core/test/sharedStore/contract.js"
import * as NodeFileKeyValueStore from "../../src/NodeFileKeyValueStore.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))

const tmp = (name: string) => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "hub-shared-")), name)

const storeIn = (directory: string) =>
  Effect.map(
    Layer.build(NodeFileKeyValueStore.layer(directory)),
    (context) => Context.get(context, SharedStore.SharedStore)
  )

sharedStoreContract(
  "Node files",
  Layer.scoped(
    Pair,
    Effect.suspend(() => {
      const directory = tmp("store")
      return Effect.all({ a: storeIn(directory), b: storeIn(directory) })
    })
  )
)

const modeOf = (path: string) => Fs.statSync(path).mode & 0o777

describe("NodeFileKeyValueStore", () => {
  it.scoped("the shared records are apart from the keys: clear and size see the keys only", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(NodeFileKeyValueStore.layer(tmp("apart")))
      const kv = Context.get(context, KeyValueStore.KeyValueStore)
      const records = Context.get(context, SharedStore.SharedStore).collection("c")
      yield* kv.set("k", "v")
      yield* records.put("k", "record")
      expect(yield* kv.size).toBe(1)
      yield* kv.clear
      expect(yield* kv.size).toBe(0)
      expect(yield* records.list).toEqual([["k", "record"]])
    }))
})

describe("NodeFileKeyValueStore file modes", () => {
  it.scoped("a new directory is 0700 and every file written in it 0600, records included", () =>
    Effect.gen(function*() {
      const directory = tmp("new")
      const context = yield* Layer.build(NodeFileKeyValueStore.layer(directory))
      yield* Context.get(context, KeyValueStore.KeyValueStore).set("key", "value")
      const records = Context.get(context, SharedStore.SharedStore).collection("servers")
      yield* records.put("one", "{}")
      expect(modeOf(directory)).toBe(0o700)
      expect(modeOf(Path.join(directory, "key"))).toBe(0o600)
      const folder = Path.join(directory, "%records", "servers")
      expect(modeOf(folder)).toBe(0o700)
      expect(modeOf(Path.join(directory, "%records"))).toBe(0o700)
      expect(modeOf(Path.join(folder, "one"))).toBe(0o600)
    }))

  it.scoped("an existing 0755 directory with 0644 files is narrowed when opened", () =>
    Effect.gen(function*() {
      const directory = tmp("old")
      Fs.mkdirSync(Path.join(directory, "%records", "servers"), { recursive: true, mode: 0o755 })
      Fs.chmodSync(directory, 0o755)
      Fs.writeFileSync(Path.join(directory, "old-key"), "v", { mode: 0o644 })
      Fs.writeFileSync(Path.join(directory, "%records", "servers", "s"), "{}", { mode: 0o644 })
      Fs.chmodSync(Path.join(directory, "old-key"), 0o644)
      yield* Layer.build(NodeFileKeyValueStore.layer(directory))
      expect(modeOf(directory)).toBe(0o700)
      expect(modeOf(Path.join(directory, "old-key"))).toBe(0o600)
      expect(modeOf(Path.join(directory, "%records", "servers"))).toBe(0o700)
      expect(modeOf(Path.join(directory, "%records", "servers", "s"))).toBe(0o600)
    }))
})

describe("NodeFileKeyValueStore across processes", () => {
  it.live("processes adding to one counter by compareAndSet lose no increment", () =>
    Effect.gen(function*() {
      const directory = tmp("race")
      const increments = 60
      const store = yield* storeIn(directory)
      const racers = Array.from({ length: 3 }, () =>
        ChildProcess.spawn(Path.join(root, "node_modules/.bin/tsx"), [
          "--conditions=@mcp-effect/source",
          "packages/hub/test/fixtures/casRacer.ts",
          directory,
          String(increments)
        ], { cwd: root, stdio: ["pipe", "pipe", "inherit"] }))
      yield* Effect.addFinalizer(() => Effect.sync(() => racers.forEach((child) => child.kill("SIGKILL"))))
      const lines = racers.map((child) => {
        const seen: Array<string> = []
        let buffer = ""
        let wake: (() => void) | undefined
        child.stdout.on("data", (chunk) => {
          buffer += chunk
          const parts = buffer.split("\n")
          buffer = parts.pop()!
          for (const part of parts) seen.push(part)
          wake?.()
        })
        return (n: number) =>
          Effect.async<string>((resume) => {
            const check = () => {
              if (seen.length > n) resume(Effect.succeed(seen[n]!))
            }
            wake = check
            check()
          })
      })
      expect(yield* Effect.forEach(lines, (line) => line(0))).toEqual(["ready", "ready", "ready"])
      racers.forEach((child) => child.stdin.write("go\n"))
      const lost = (yield* Effect.forEach(lines, (line) => line(1))).map(Number)
      expect(yield* store.collection("race").get("counter")).toEqual(Option.some(String(3 * increments)))
      // the processes did race (a lost race is retried, and counted)
      expect(lost.reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
      expect(Fs.readdirSync(Path.join(directory, "%records", "race")).filter((f) => f.startsWith("%"))).toEqual([])
    }).pipe(Effect.scoped), 60_000)
})
