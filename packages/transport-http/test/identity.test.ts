// What a SessionStore keeps belongs to one server identity (its name and its URL): a stored session
// never reaches another URL, and the era a server spoke is remembered so it is probed once.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, SessionStore } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { HttpTransport } from "../src/index.js"
import { startFaultServer } from "./fixtures/faultServer.js"
import { resource, waitFor } from "./fixtures/harness.js"
import { MODERN, startSdkV2Server } from "./fixtures/sdkV2Server.js"

/** A client of the server named `name` at `url`, on `store`, built in `scope`. */
const clientIn = (scope: Scope.Scope, store: SessionStore.Service, name: string, url: string) =>
  Layer.buildWithScope(
    McpClient.layer({ clientInfo: { name: "identity-test", version: "1.0.0" }, server: name }).pipe(
      Layer.provide(HttpTransport.layer({ url })),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, store)),
      Layer.provide(FetchHttpClient.layer)
    ),
    scope
  ).pipe(Effect.map(Context.get(McpClient.McpClient)))

const memoryStore = Effect.provide(SessionStore.SessionStore, SessionStore.layerMemory)

describe("a SessionStore keyed by server identity", () => {
  it.scopedLive("one server name moved to another URL: no session id or event id of the old URL reaches the new one", () =>
    Effect.gen(function*() {
      const store = yield* memoryStore
      const old = yield* resource(() => startFaultServer())
      const moved = yield* resource(() => startFaultServer())
      // a client of "docs" at the old URL holds a session whose GET stream delivered an event (a reload leaves it stored)
      const first = yield* clientIn(yield* Effect.scope, store, "docs", old.url)
      yield* first.listTools
      yield* waitFor("the GET stream", () => old.push("notifications/message", { level: "info", data: "one" }) === 1)
      const identity = { name: "docs", endpoint: old.url }
      for (let i = 0; i < 500; i++) {
        const stored = yield* store.get(identity)
        if (Option.isSome(stored) && stored.value.lastEventIds.get !== undefined) break
        yield* Effect.sleep("10 millis")
      }
      expect(Option.getOrThrow(yield* store.get(identity)).lastEventIds.get).toBeDefined()

      // "docs" now names another URL: it starts a session of its own there
      const second = yield* clientIn(yield* Effect.scope, store, "docs", moved.url)
      expect((yield* second.initialized).restored).toBeUndefined()
      // nothing reached it before its own initialize (no GET resuming the old session), none with an event id
      const initialize = moved.requests.findIndex((r) => r.body?.method === "initialize")
      expect(moved.requests.slice(0, initialize + 1).filter((r) => r.headers["mcp-session-id"] !== undefined)).toEqual(
        []
      )
      expect(moved.requests.filter((r) => r.headers["last-event-id"] !== undefined)).toEqual([])

      // while "docs" at the old URL still resumes the session stored for it
      const oldRequests = old.requests.length
      const third = yield* clientIn(yield* Effect.scope, store, "docs", old.url)
      expect((yield* third.initialized).restored).toBeDefined()
      const resumed = old.requests.slice(oldRequests)[0]!
      expect(resumed.method).toBe("GET")
      expect(resumed.headers["mcp-session-id"]).toBe("s1")
      expect(resumed.headers["last-event-id"]).toBeDefined()
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scopedLive("the era a 2025 server spoke is remembered: a later session sends no server/discover", () =>
    Effect.gen(function*() {
      const store = yield* memoryStore
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const discovers = () => server.requests.filter((r) => r.body?.method === "server/discover").length
      for (let i = 0; i < 3; i++) {
        // each client closed on purpose (its stored session is removed, the era is not)
        const scope = yield* Scope.make()
        const client = yield* clientIn(scope, store, "legacy", server.url)
        expect((yield* client.initialized).protocolVersion).toBe("2025-11-25")
        yield* Scope.close(scope, Exit.void)
      }
      // one failing probe for this server, ever
      expect(discovers()).toBe(1)
      expect(server.requests.filter((r) => r.body?.method === "initialize")).toHaveLength(3)
      expect(yield* store.getEra({ name: "legacy", endpoint: server.url })).toEqual(Option.some("legacy"))
    }))

  it.scopedLive("a server remembered as 2025 that was upgraded to 2026-07-28 only is still reached (and remembered anew)", () =>
    Effect.gen(function*() {
      const store = yield* memoryStore
      const server = yield* resource(startSdkV2Server)
      const identity = { name: "upgraded", endpoint: server.url }
      yield* store.setEra(identity, "legacy")
      const client = yield* clientIn(yield* Effect.scope, store, "upgraded", server.url)
      expect((yield* client.initialized).protocolVersion).toBe(MODERN)
      expect((yield* client.listTools).length).toBeGreaterThan(0)
      // the remembered era went first, was refused, and the modern era was found
      const methods = server.requests.map((r) => r.body?.method)
      expect(methods.indexOf("initialize")).toBeLessThan(methods.indexOf("server/discover"))
      for (let i = 0; i < 100; i++) {
        if (Option.getOrUndefined(yield* store.getEra(identity)) === "modern") break
        yield* Effect.sleep("10 millis")
      }
      expect(yield* store.getEra(identity)).toEqual(Option.some("modern"))
    }))
})
