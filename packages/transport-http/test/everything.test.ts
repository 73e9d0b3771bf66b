// The whole client (McpClient over HttpTransport) against the official SDK's server-everything,
// as a browser user meets it: cancelled calls, a 6-connection cap, a server that dies and comes back.
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Elicitation, McpClient } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { Agent } from "undici"
import { HttpTransport } from "../src/index.js"
import { type Everything, startEverything, startEverythingOn } from "./fixtures/everything.js"

/**
 * An HTTP client allowing 6 connections per origin, as Chromium does over HTTP/1.1 (undici with an
 * `Agent` of 6 connections: the cap holds for every request, whatever fiber sends it).
 */
const chromiumLike = NodeHttpClient.layerUndiciWithoutDispatcher.pipe(
  Layer.provide(Layer.scoped(
    NodeHttpClient.Dispatcher,
    Effect.acquireRelease(
      Effect.sync(() => new Agent({ connections: 6 })),
      (agent) => Effect.promise(() => agent.destroy())
    )
  ))
)

const elicitation = Elicitation.layer((params) =>
  Effect.succeed(
    params.mode === "url" ? { action: "decline" as const } : {
      action: "accept" as const,
      content: Elicitation.applyDefaults(params.requestedSchema, { name: "Ada", interpretation: "technical" })
    }
  )
)

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((c) =>
    (c as { type: string; text?: string }).type === "text" ? [(c as { text: string }).text] : []
  )
    .join("\n")

/** A client of `url`, built in the current scope. */
const clientOf = (url: string) =>
  Layer.build(
    McpClient.layer({ clientInfo: { name: "everything-test", version: "1.0.0" } }).pipe(
      Layer.provide(elicitation),
      Layer.provide(HttpTransport.layer({ url })),
      Layer.provide(chromiumLike)
    )
  ).pipe(Effect.map(Context.get(McpClient.McpClient)))

/** The server as a resource whose current process can be replaced (`restart`). */
const everything = Effect.acquireRelease(
  Effect.promise(startEverything).pipe(Effect.flatMap((first) => Ref.make<Everything>(first))),
  (ref) => Effect.flatMap(Ref.get(ref), (server) => Effect.promise(server.close))
)

const toolsIncluding = (client: McpClient.McpClient["Type"], name: string) =>
  client.tools.changes.pipe(
    Stream.filter((tools) => tools.some((t) => t.name === name)),
    Stream.runHead,
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`no tool ${name}`) })
  )

describe("McpClient over HttpTransport against server-everything", () => {
  it.scopedLive(
    "8 interrupted calls the server never answers, then a call and an elicitation round trip succeed with 6 connections per origin",
    () =>
      Effect.gen(function*() {
        const server = yield* Ref.get(yield* everything)
        const client = yield* clientOf(server.url)
        yield* toolsIncluding(client, "trigger-elicitation-request")
        for (let i = 0; i < 8; i++) {
          // a minute-long operation: once cancelled, the server never answers it (nor closes its stream)
          const progressed = yield* Deferred.make<void>()
          const call = yield* client.callToolStream({
            name: "trigger-long-running-operation",
            arguments: { duration: 60, steps: 120 }
          }).pipe(
            Stream.runForEach((event) =>
              event._tag === "Progress" ? Deferred.succeed(progressed, undefined) : Effect.void
            ),
            Effect.fork
          )
          // its answer stream is open (a progress notification came on it): then the user cancels
          yield* Deferred.await(progressed)
          yield* Fiber.interrupt(call)
        }
        const echoed = yield* client.callTool({ name: "echo", arguments: { message: "still here" } }).pipe(
          Effect.timeoutFail({
            duration: "10 seconds",
            onTimeout: () => new Error("the call queued behind cancelled ones")
          })
        )
        expect(text(echoed)).toContain("still here")
        const elicited = yield* client.callTool({ name: "trigger-elicitation-request" }).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the elicitation deadlocked") })
        )
        expect(text(elicited)).toContain("Ada")
      }),
    60_000
  )

  it.scopedLive(
    "killed, the state leaves Ready within seconds; restarted on the same port, the client recovers by itself and a call succeeds",
    () =>
      Effect.gen(function*() {
        const ref = yield* everything
        const first = yield* Ref.get(ref)
        const client = yield* clientOf(first.url)
        expect(text(yield* client.callTool({ name: "echo", arguments: { message: "one" } }))).toContain("one")
        const ready = yield* client.state.get
        expect(ready._tag).toBe("Ready")
        yield* Effect.promise(first.close)
        const killedAt = Date.now()
        const left = yield* client.state.changes.pipe(
          Stream.filter((state) => state._tag !== "Ready"),
          Stream.runHead,
          Effect.timeoutFail({
            duration: "5 seconds",
            onTimeout: () => new Error("still Ready 5 s after the server died")
          })
        )
        expect(left).toMatchObject({ _tag: "Some", value: { _tag: "Reconnecting" } })
        expect(Date.now() - killedAt).toBeLessThan(5_000)
        // back on the same port: no manual reconnect
        const second = yield* Effect.promise(() => startEverythingOn(first.port))
        yield* Ref.set(ref, second)
        yield* client.state.changes.pipe(
          Stream.filter((state) => state._tag === "Ready"),
          Stream.runHead,
          Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("never Ready again") })
        )
        expect(text(yield* client.callTool({ name: "echo", arguments: { message: "two" } }))).toContain("two")
      }),
    60_000
  )
})
