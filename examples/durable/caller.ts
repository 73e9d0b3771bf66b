// Process A: calls the `ask-name` tool. The server asks for a name (input_required); this process's
// person never answers, so the call waits, a record in Redis. Kill this process: the record stays.
import { NodeRuntime } from "@effect/platform-node"
import { Continuations, Elicitation, McpClient } from "@mcp-effect/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Client, Durable, say } from "./shared.js"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* Continuations.withIdentity(client.callTool({ name: "ask-name", arguments: {} }), "alice")
  yield* say(`A: the call completed: ${JSON.stringify(result.content)}`)
})

// elicitation is declared, and left to whoever answers the continuation (`answerer.ts`)
const Asking = Elicitation.layer(() => Effect.zipRight(say("A: asked for a name; waiting"), Effect.never))

program.pipe(Effect.provide(Client.pipe(Layer.provide(Layer.merge(Durable, Asking)))), NodeRuntime.runMain)
