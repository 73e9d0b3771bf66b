// Process B (or A after a restart): lists alice's pending continuations and answers the first one
// with the name given on the command line; the server completes the call once.
import { NodeRuntime } from "@effect/platform-node"
import { Continuations, McpClient } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { Client, Durable, say, server } from "./shared.js"

const name = process.argv[2] ?? "Ada"

const program = Effect.gen(function*() {
  const continuations = yield* Continuations.Continuations
  const pending = yield* continuations.list({ server, identity: "alice" }).pipe(
    Effect.filterOrFail((list) => list.length > 0),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("10 seconds")))
  )
  const [first] = pending
  yield* say(`B: ${pending.length} pending; answering ${first!.id} (${first!.method}, round ${first!.round})`)
  const result = yield* continuations.answer(first!.id, { name: { action: "accept", content: { name } } }, {
    client: yield* McpClient.McpClient,
    identity: "alice"
  })
  yield* say(`B: the call completed: ${JSON.stringify(result)}`)
  // a second answer is refused: exactly once
  const again = yield* Effect.flip(
    continuations.answer(first!.id, {}, { client: yield* McpClient.McpClient, identity: "alice" })
  )
  yield* say(`B: answering again: ${again._tag}`)
  yield* continuations.cleanup
})

program.pipe(Effect.provide(Layer.merge(Client, Durable)), NodeRuntime.runMain)
