/**
 * The floor under any minimal browser client built on Effect 3, for the bundle-size metric:
 * the Effect runtime, `FetchHttpClient` posting one JSON-RPC message and reading the answer,
 * and `Schema` decoding it into a message or failing with a `Schema.TaggedError`. No MCP code:
 * what `examples/installed-browser.ts` adds above this line is the client itself.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

class AnswerError extends Schema.TaggedError<AnswerError>()("AnswerError", { message: Schema.String }) {}

const Answer = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.Union(Schema.String, Schema.Number),
  result: Schema.optional(Schema.Unknown)
})

export const run = (url: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyUnsafeJson({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    )
    const body = yield* Effect.flatMap(client.execute(request), (response) => response.json)
    return yield* Schema.decodeUnknown(Answer)(body).pipe(
      Effect.mapError((error) => new AnswerError({ message: error.message }))
    )
  }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer), Effect.runPromise)
