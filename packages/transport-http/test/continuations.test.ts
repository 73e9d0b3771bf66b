// A real client and the official SDK v2 server (2026-07-28, `input_required`): with `Continuations`
// in the client's context, a call waiting for input is a record; answered through another client of
// the same server, the retry carries the answers and the echoed requestState, and the call completes.
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Continuations, Elicitation, McpClient } from "@mcp-effect/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { HttpTransport } from "../src/index.js"
import { resource } from "./fixtures/harness.js"
import { startSdkV2Server } from "./fixtures/sdkV2Server.js"

describe("Continuations over HTTP (2026-07-28)", () => {
  it.scopedLive(
    "a call waiting for input is answered through another client; the server completes it once",
    () =>
      Effect.gen(function*() {
        const server = yield* resource(() => startSdkV2Server())
        const continuations = yield* Layer.build(Continuations.layerMemory())
        const clientLayer = McpClient.layer({ clientInfo: { name: "durable", version: "1.0.0" }, server: "bookings" })
          .pipe(
            Layer.provide(HttpTransport.layer({ url: server.url })),
            Layer.provide(FetchHttpClient.layer),
            Layer.provide(Layer.succeedContext(continuations)),
            // elicitation is declared, and every request is left to `answer` (a UI, another process)
            Layer.provide(Elicitation.layer(() => Effect.never))
          )
        const caller = Context.get(yield* Layer.build(clientLayer), McpClient.McpClient)
        const other = Context.get(yield* Layer.build(clientLayer), McpClient.McpClient)
        const service = Context.get(continuations, Continuations.Continuations)

        // its handler never answers: the call waits for an answer from elsewhere
        const call = yield* Effect.fork(caller.callTool({ name: "book", arguments: { table: "7" } }))
        let pending: ReadonlyArray<Continuations.Continuation> = []
        for (let i = 0; i < 500 && pending.length === 0; i++) {
          pending = yield* service.list({ server: "bookings" })
          if (pending.length === 0) yield* Effect.sleep("10 millis")
        }
        expect(pending).toHaveLength(1)
        expect(pending[0]).toMatchObject({
          method: "tools/call",
          params: { name: "book", arguments: { table: "7" } },
          requestState: "book:7",
          round: 1
        })
        expect(pending[0]!.inputRequests.name!.method).toBe("elicitation/create")

        const answered = yield* service.answer(
          pending[0]!.id,
          { name: { action: "accept", content: { name: "Ada" } } },
          {
            client: other
          }
        )
        expect(answered).toMatchObject({ content: [{ type: "text", text: "booked 7 for Ada" }] })
        expect(yield* Fiber.join(call)).toMatchObject({ content: [{ type: "text", text: "booked 7 for Ada" }] })
        expect(server.booked).toEqual([{ table: "7", name: "Ada", requestState: "book:7" }])
      }),
    20_000
  )
})
