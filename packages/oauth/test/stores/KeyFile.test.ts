import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as KeyFile from "../../src/KeyFile.js"

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "oauth-key-file-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
)

describe("KeyFile", () => {
  it.scoped("creates an owner-only key file once and reads the same key back", () =>
    Effect.gen(function*() {
      const path = Path.join(yield* temporaryDirectory, "my.key")
      const created = yield* KeyFile.loadOrCreate(path)
      expect(Redacted.value(created)).toHaveLength(32)
      expect(Fs.statSync(path).mode & 0o777).toBe(0o600)
      const again = yield* KeyFile.loadOrCreate(path)
      expect(Redacted.value(again)).toEqual(Redacted.value(created))
      expect(String(created)).not.toContain(Buffer.from(Redacted.value(created)).toString("base64"))
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("processes starting together agree on one key", () =>
    Effect.gen(function*() {
      const path = Path.join(yield* temporaryDirectory, "raced.key")
      const keys = yield* Effect.all(Array.from({ length: 8 }, () => KeyFile.loadOrCreate(path)), {
        concurrency: "unbounded"
      })
      const distinct = new Set(keys.map((key) => Buffer.from(Redacted.value(key)).toString("hex")))
      expect(distinct.size).toBe(1)
      expect(Fs.readdirSync(Path.dirname(path))).toEqual(["raced.key"])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("narrows a key file others can read, and refuses one that holds no key without quoting it", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory
      const wide = Path.join(directory, "wide.key")
      Fs.writeFileSync(wide, `${Buffer.alloc(32, 7).toString("base64")}\n`, { mode: 0o644 })
      Fs.chmodSync(wide, 0o644)
      const key = yield* KeyFile.loadOrCreate(wide)
      expect(Redacted.value(key)).toEqual(new Uint8Array(32).fill(7))
      expect(Fs.statSync(wide).mode & 0o777).toBe(0o600)

      const broken = Path.join(directory, "broken.key")
      Fs.writeFileSync(broken, "not-a-key-secret-text", { mode: 0o600 })
      const error = yield* Effect.flip(KeyFile.loadOrCreate(broken))
      expect(error).toBeInstanceOf(KeyFile.KeyFileError)
      expect(error.message).not.toContain("not-a-key-secret-text")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("takes a key given as base64, and refuses one of the wrong length", () =>
    Effect.gen(function*() {
      const key = yield* KeyFile.fromOption(Redacted.make(Buffer.alloc(32, 9).toString("base64")))
      expect(Redacted.value(key)).toEqual(new Uint8Array(32).fill(9))
      const error = yield* Effect.flip(KeyFile.fromOption(Redacted.make("c2hvcnQ=")))
      expect(error._tag).toBe("KeyFileError")
    }))
})
