import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClientSession from "../src/ClientSession.js"
import * as McpClient from "../src/McpClient.js"
import * as Roots from "../src/Roots.js"
import * as Sampling from "../src/Sampling.js"
import * as TestServer from "../src/TestServer.js"
import { clientInfo, eventually, receivedWith } from "./utils.js"

let tools = [{ name: "first", inputSchema: { type: "object" } }]

const server = TestServer.layer({
  capabilities: { tools: { listChanged: true } },
  handlers: { "tools/list": () => Effect.succeed({ tools }) }
})

/** The session as its own layer, seeing the handler services; the client on top of it. */
const layered = McpClient.layerOnSession({ server: "test" }).pipe(
  Layer.provideMerge(
    ClientSession.layer({ clientInfo }).pipe(
      Layer.provide(
        Sampling.layer(() => Effect.succeed({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }))
      ),
      Layer.provide(Roots.layer([{ uri: "file:///work" }]))
    )
  ),
  Layer.provideMerge(server)
)

describe("ClientSession.layer and McpClient.layerOnSession", () => {
  it.scoped("the session layer advertises and answers what the handler services in its context offer", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const session = yield* ClientSession.ClientSession
      const test = yield* TestServer.TestServer
      yield* client.initialized
      // one session, shared: the client sits on the provided one
      expect(client.session).toBe(session)
      const [initialize] = yield* receivedWith("initialize")
      expect(initialize!.params?.capabilities).toEqual({ sampling: {}, roots: { listChanged: true } })
      const answer = yield* test.request("sampling/createMessage", { messages: [], maxTokens: 10 })
      expect("result" in answer && answer.result).toMatchObject({ model: "m" })
      const roots = yield* test.request("roots/list")
      expect("result" in roots && roots.result).toEqual({ roots: [{ uri: "file:///work" }] })
      expect((yield* receivedWith("initialize")).length).toBe(1)
    }).pipe(Effect.provide(layered)))

  it.scoped("a client on a provided session fills and refreshes its live views", () =>
    Effect.gen(function*() {
      tools = [{ name: "first", inputSchema: { type: "object" } }]
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      // prefetch after the session's initialization, which happened before the client existed
      yield* eventually(Effect.map(client.tools.get, (list) => list.length === 1))
      tools = [...tools, { name: "second", inputSchema: { type: "object" } }]
      const changes = yield* Effect.fork(
        client.tools.changes.pipe(Stream.filter((l) => l.length === 2), Stream.runHead)
      )
      yield* test.notify("notifications/tools/list_changed")
      const seen = yield* changes
      expect(seen._tag === "Some" && seen.value.map((t) => t.name)).toEqual(["first", "second"])
    }).pipe(Effect.provide(layered)))

  const seen: Array<string> = []
  it.scoped("McpClient.layer runs the app's onNotification next to its own list refresh", () =>
    Effect.gen(function*() {
      tools = [{ name: "first", inputSchema: { type: "object" } }]
      const client = yield* McpClient.McpClient
      const test = yield* TestServer.TestServer
      yield* eventually(Effect.map(client.tools.get, (list) => list.length === 1))
      tools = [...tools, { name: "second", inputSchema: { type: "object" } }]
      yield* test.notify("notifications/tools/list_changed")
      yield* eventually(Effect.map(client.tools.get, (list) => list.length === 2))
      expect(seen).toEqual(["notifications/tools/list_changed"])
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo, onNotification: (n) => Effect.sync(() => void seen.push(n.method)) }).pipe(
          Layer.provideMerge(server)
        )
      )
    ))
})
