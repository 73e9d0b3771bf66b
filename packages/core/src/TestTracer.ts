/**
 * A tracer that keeps every span it makes, for tests that assert what is
 * traced: names, parents, attributes and how each span ended. Install it
 * with `Effect.withTracer(recorder.tracer)` (or `Layer.setTracer`) around
 * the code under test, including where the client's Layer is built, since
 * the session's background work (connect, initialize, reconnect) runs there.
 *
 * @example
 * ```ts
 * import { McpClient, TestServer, TestTracer } from "@mcp-effect/core"
 * import { Effect, Layer } from "effect"
 *
 * const recorder = TestTracer.make()
 * const Client = McpClient.layer({ clientInfo: { name: "test", version: "1.0.0" } }).pipe(
 *   Layer.provide(TestServer.layer({ handlers: { "tools/call": () => Effect.succeed({ content: [] }) } }))
 * )
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   yield* client.callTool({ name: "echo" })
 *   const [span] = recorder.named("mcp.client tools/call")
 *   console.log(span.attributes.get("gen_ai.tool.name")) // "echo"
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(Client), Effect.withTracer(recorder.tracer)))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Tracer from "effect/Tracer"

/**
 * @since 0.2.0
 * @category models
 */
export interface TestTracer {
  readonly tracer: Tracer.Tracer
  /** Every span made so far, in the order they were started. */
  readonly spans: ReadonlyArray<Tracer.Span>
  /** The spans with this name, in the order they were started. */
  readonly named: (name: string) => ReadonlyArray<Tracer.Span>
}

/**
 * A recording tracer: spans are Effect's own (attributes and status kept in
 * memory), and each is remembered when it starts.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): TestTracer => {
  const builtIn = Context.get(DefaultServices.liveServices, Tracer.Tracer)
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = builtIn.span(...args)
      spans.push(span)
      return span
    },
    context: (f) => f()
  })
  return { tracer, spans, named: (name) => spans.filter((span) => span.name === name) }
}
