/**
 * Tracing with OpenTelemetry: `@effect/opentelemetry` turns the client's spans
 * (`mcp.client connect`, `mcp.client initialize`, `mcp.client tools/call`, …)
 * into OpenTelemetry spans. Here they go to an in-memory exporter and are
 * printed; an app passes its own exporter (OTLP, console) instead.
 *
 *   npx tsx --conditions=@mcp-effect/source examples/opentelemetry.ts
 *
 * Without a tracer installed the client makes no request spans at all.
 */
import * as OtelResource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { McpClient } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"

const exporter = new InMemorySpanExporter()

/** The OpenTelemetry side: a tracer provider exporting to `exporter`, flushed when the layer closes. */
const Tracing = OtelTracer.layer.pipe(
  Layer.provide(
    Layer.scoped(
      OtelTracer.OtelTracerProvider,
      Effect.acquireRelease(
        Effect.sync(() => new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })),
        (provider) => Effect.promise(() => provider.forceFlush())
      )
    )
  ),
  Layer.provide(OtelResource.layer({ serviceName: "mcp-effect-example" }))
)

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const Client = McpClient.layer({ clientInfo: { name: "otel-example", version: "1.0.0" } }).pipe(
  Layer.provide(NodeStdioTransport.layer({ command: process.execPath, args: [everything, "stdio"] }))
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.callTool({ name: "echo", arguments: { message: "traced" } })
}).pipe(
  // the app's own span: the request span becomes its child
  Effect.withSpan("app.echo"),
  Effect.provide(Client)
)

await Effect.runPromise(Effect.provide(program, Tracing))

for (const span of exporter.getFinishedSpans()) {
  console.log(span.name, JSON.stringify(span.attributes))
}
// mcp.client connect {"mcp.connect.attempt":1}
// mcp.client initialize {"mcp.method.name":"initialize","jsonrpc.request.id":"1","network.transport":"pipe",…}
// mcp.client tools/list … (the client's prefetch)
// mcp.client tools/call {…,"gen_ai.tool.name":"echo","gen_ai.operation.name":"execute_tool","jsonrpc.request.id":"7",…}
// app.echo {}
