// Redirects are followed by the transport itself: credentials and the session id never cross origins.
import { FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as http from "node:http"
import { HttpAuth } from "../src/index.js"
import { type Recorded, startFaultServer } from "./fixtures/faultServer.js"
import { connections, peer, resource, resultOf, waitFor } from "./fixtures/harness.js"

const secretOptions = {
  headers: { "x-api-key": Redacted.make("static-key-1"), cookie: "sid=cookie-1" },
  auth: { _tag: "Bearer", token: Redacted.make("bearer-1") } as const,
  sseReconnect: Schedule.stop
}
const hook = Layer.succeed(HttpAuth.HttpAuth, {
  headers: () => Effect.succeed({ "x-hook": "hook-1" }),
  onChallenge: () => Effect.succeed("fail" as const)
})

const leaks = (headers: http.IncomingHttpHeaders): Array<string> => {
  const text = JSON.stringify(headers)
  return ["static-key-1", "cookie-1", "bearer-1", "hook-1", "mcp-session-id", "authorization", "cookie"].filter((s) =>
    text.includes(s)
  )
}

/** A session on one fault server, and another origin to redirect to. */
const initializedWithOther = Effect.gen(function*() {
  const server = yield* resource(() => startFaultServer({ get405: true }))
  const other = yield* resource(() => startFaultServer({ get405: true }))
  const next = yield* connections({ url: server.url, ...secretOptions })
  const client = yield* peer(yield* next)
  yield* client.initialize
  return { client, next, other, server }
})

const clients = [
  ["fetch", FetchHttpClient.layer],
  ["undici", NodeHttpClient.layerUndici]
] as const

describe("HttpTransport: redirects", () => {
  for (const [name, httpClient] of clients) {
    it.scopedLive(`${name}: a 307 on the GET stream to another origin carries no credential and no session id`, () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startFaultServer())
        const other = yield* resource(() => startFaultServer())
        server.faults.redirect = { count: 1, method: "GET", status: 307, location: other.url }
        const next = yield* connections({ url: server.url, ...secretOptions })
        const client = yield* peer(yield* next)
        yield* client.initialize
        yield* waitFor("the redirected GET", () => other.requests.some((r) => r.method === "GET"))
        const get = other.requests.find((r) => r.method === "GET")!
        expect(leaks(get.headers)).toEqual([])
        expect(get.headers["mcp-protocol-version"]).toBe("2025-11-25")
        // the origin itself got everything
        expect(server.requests.find((r) => r.method === "GET")!.headers["x-hook"]).toBe("hook-1")
      }).pipe(Effect.provide(Layer.merge(httpClient, hook))))
  }

  it.scopedLive("a 307 on a POST to another origin keeps the body, drops credentials and the session id", () =>
    Effect.gen(function*() {
      const { client, other, server } = yield* initializedWithOther
      server.faults.redirect = { count: 1, method: "POST", status: 307, location: other.url }
      const error = yield* Effect.flip(client.request("tools/list"))
      expect(error).toMatchObject({ _tag: "TransportError", status: 400 }) // the other server knows no session
      const post: Recorded = other.requests.find((r) => r.method === "POST")!
      expect(post.body.method).toBe("tools/list")
      expect(leaks(post.headers)).toEqual([])
    }).pipe(Effect.provide(Layer.merge(FetchHttpClient.layer, hook))))

  it.scopedLive("a same-origin 308 keeps credentials and the session; the call succeeds", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, ...secretOptions })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.redirect = { count: 1, method: "POST", status: 308, location: "/mcp?moved=1" }
      expect(resultOf(yield* client.request("tools/list")).tools[0].name).toBe("count")
      const posts = server.requests.filter((r) => r.body?.method === "tools/list")
      expect(posts).toHaveLength(2)
      expect(posts[1]!.headers["mcp-session-id"]).toBe("s1")
      expect(posts[1]!.headers["x-api-key"]).toBe("static-key-1")
    }).pipe(Effect.provide(Layer.merge(FetchHttpClient.layer, hook))))

  it.scopedLive("the DELETE on close follows a redirect without the session id to another origin", () =>
    Effect.gen(function*() {
      const { next, other, server } = yield* initializedWithOther
      server.faults.redirect = { count: 1, method: "DELETE", status: 307, location: other.url }
      yield* Effect.fork(next) // pulling the next connection closes the first
      yield* waitFor("the redirected DELETE", () => other.requests.some((r) => r.method === "DELETE"))
      expect(leaks(other.requests.find((r) => r.method === "DELETE")!.headers)).toEqual([])
    }).pipe(Effect.provide(Layer.merge(FetchHttpClient.layer, hook))))

  it.scopedLive("redirect loops and a 302 on a POST are typed errors", () =>
    Effect.gen(function*() {
      const server = yield* resource(() => startFaultServer({ get405: true }))
      const next = yield* connections({ url: server.url, maxRedirects: 3 })
      const client = yield* peer(yield* next)
      yield* client.initialize
      server.faults.redirect = { count: 100, method: "POST", status: 307, location: "/mcp" }
      const loop = yield* Effect.flip(client.request("tools/list"))
      expect(loop).toBeInstanceOf(McpError.TransportError)
      expect(loop.message).toContain("redirected more than 3 times")
      expect(server.requests.filter((r) => r.body?.method === "tools/list")).toHaveLength(4)
      server.faults.redirect = { count: 1, method: "POST", status: 302, location: "/mcp" }
      const moved = yield* Effect.flip(client.request("tools/list"))
      expect(moved).toMatchObject({ _tag: "TransportError", status: 302 })
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
