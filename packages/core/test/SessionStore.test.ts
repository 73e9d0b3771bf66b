// @vitest-environment happy-dom
// One contract for every backing store: memory, Node files, and the browser's localStorage (happy-dom).
import { BrowserKeyValueStore } from "@effect/platform-browser"
import { NodeKeyValueStore } from "@effect/platform-node"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionStore from "../src/SessionStore.js"

const secret = "session-3f9c-secret"

const record = (overrides: Partial<SessionStore.Stored> = {}): SessionStore.Stored => ({
  protocolVersion: "2025-11-25",
  serverInfo: { name: "fixture", version: "1.0.0" },
  capabilities: { tools: { listChanged: true }, logging: {} },
  instructions: "be brief",
  sessionId: Redacted.make(secret),
  lastEventIds: { get: "_GET_stream|7" },
  subscriptions: ["file:///a.txt"],
  loggingLevel: "info",
  ...overrides
})

const newKey = Effect.promise(() =>
  globalThis.crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"])
)

const plain = (stored: SessionStore.Stored) => ({ ...stored, sessionId: Redacted.value(stored.sessionId) })

const backends: ReadonlyArray<readonly [string, () => Layer.Layer<KeyValueStore.KeyValueStore, unknown>]> = [
  ["memory", () => KeyValueStore.layerMemory],
  ["Node files", () =>
    Layer.unwrapScoped(
      Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-session-store-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      ).pipe(Effect.map(NodeKeyValueStore.layerFileSystem))
    )],
  ["browser localStorage", () => {
    localStorage.clear()
    return BrowserKeyValueStore.layerLocalStorage
  }]
]

for (const [name, backend] of backends) {
  describe(`SessionStore over ${name}`, () => {
    const run = <A, E>(use: (store: SessionStore.Service, kv: KeyValueStore.KeyValueStore) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        return yield* use(store, yield* KeyValueStore.KeyValueStore)
      }).pipe(Effect.provide(SessionStore.layer().pipe(Layer.provideMerge(backend()))))

    it.effect("with a key, the session id is sealed at rest and opens only with that key", () =>
      Effect.gen(function*() {
        const kv = yield* KeyValueStore.KeyValueStore
        const key = yield* newKey
        const sealed = SessionStore.make(kv, { key })
        yield* sealed.set("a", record())
        const raw = yield* Effect.flatten(kv.get("mcp-effect/session/a"))
        expect(raw).not.toContain(secret)
        expect(raw).toContain("fixture") // the rest is plain JSON
        expect(Redacted.value((yield* Effect.flatten(sealed.get("a"))).sessionId)).toBe(secret)
        // another key, or no key, cannot read it: a typed error, and the session starts afresh
        for (const other of [SessionStore.make(kv, { key: yield* newKey }), SessionStore.make(kv)]) {
          const error = yield* Effect.flip(other.get("a"))
          expect(error._tag).toBe("SessionStoreError")
          expect(error.message).not.toContain(secret)
        }
        // nor does a keyed store take an unsealed id
        yield* SessionStore.make(kv).set("b", record())
        expect((yield* Effect.flip(sealed.get("b")))._tag).toBe("SessionStoreError")
      }).pipe(Effect.provide(backend())))

    it.effect("stores, reads back, replaces and removes a session per server", () =>
      run((store) =>
        Effect.gen(function*() {
          expect(yield* store.get("a")).toEqual(Option.none())
          yield* store.set("a", record())
          yield* store.set("b", record({ subscriptions: [], loggingLevel: undefined }))
          const a = yield* Effect.flatten(store.get("a"))
          expect(plain(a)).toEqual(plain(record()))
          yield* store.set("a", record({ lastEventIds: { get: "_GET_stream|9" } }))
          expect((yield* Effect.flatten(store.get("a"))).lastEventIds).toEqual({ get: "_GET_stream|9" })
          yield* store.remove("a")
          expect(yield* store.get("a")).toEqual(Option.none())
          // removing what is not there is no error
          yield* store.remove("a")
          const b = yield* Effect.flatten(store.get("b"))
          expect(b.subscriptions).toEqual([])
          expect(b.loggingLevel).toBeUndefined()
        })
      ))

    it.effect("keys a session by the server's name and endpoint: the same name at another URL finds nothing, and no key holds the URL", () =>
      run((store, kv) =>
        Effect.gen(function*() {
          const here = { name: "docs", endpoint: "https://mcp.example.com/mcp?api_key=k-123" }
          const there = { name: "docs", endpoint: "https://other.example.net/mcp" }
          yield* store.set(here, record())
          expect(Option.isSome(yield* store.get(here))).toBe(true)
          expect(yield* store.get(there)).toEqual(Option.none())
          expect(yield* store.get("docs")).toEqual(Option.none())
          yield* store.setEra(here, "legacy")
          expect(yield* store.getEra(there)).toEqual(Option.none())
          // the key is the name and a hash of the endpoint: neither the URL nor its API key
          const hash = yield* Effect.promise(() =>
            globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(here.endpoint))
          )
          const hex = Buffer.from(hash).toString("hex").slice(0, 32)
          expect(Option.isSome(yield* kv.get(`mcp-effect/session/docs@${hex}`))).toBe(true)
          expect(yield* kv.get(`mcp-effect/session/era/docs@${hex}`)).toEqual(Option.some("legacy"))
          expect(yield* kv.size).toBe(2)
          yield* store.remove(here)
          expect(yield* store.get(here)).toEqual(Option.none())
        })
      ))

    it.effect("remembers the era per server identity, apart from the session (removing the session keeps it)", () =>
      run((store) =>
        Effect.gen(function*() {
          const server = { name: "files", endpoint: "http://127.0.0.1:3000/mcp" }
          expect(yield* store.getEra(server)).toEqual(Option.none())
          yield* store.setEra(server, "legacy")
          yield* store.set(server, record())
          yield* store.remove(server)
          expect(yield* store.getEra(server)).toEqual(Option.some("legacy"))
          yield* store.setEra(server, "modern")
          expect(yield* store.getEra(server)).toEqual(Option.some("modern"))
          expect(yield* store.getEra({ name: "files" })).toEqual(Option.none())
        })
      ))

    it.effect("keeps the session id redacted in memory", () =>
      run((store) =>
        Effect.gen(function*() {
          yield* store.set("a", record())
          const a = yield* Effect.flatten(store.get("a"))
          expect(Redacted.isRedacted(a.sessionId)).toBe(true)
          expect(Inspectable.format(a)).not.toContain(secret)
          expect(JSON.stringify(a)).not.toContain(secret)
        })
      ))

    it.effect("a value that is not a stored session is a typed error that names no secret", () =>
      run((store, kv) =>
        Effect.gen(function*() {
          yield* kv.set("mcp-effect/session/broken", "{not json")
          yield* kv.set("mcp-effect/session/wrong", JSON.stringify({ sessionId: secret, protocolVersion: 5 }))
          for (const server of ["broken", "wrong"]) {
            const error = yield* Effect.flip(store.get(server))
            expect(error._tag).toBe("SessionStoreError")
            expect(error.operation).toBe("get")
            expect(error.message).not.toContain(secret)
          }
        })
      ))
  })
}
