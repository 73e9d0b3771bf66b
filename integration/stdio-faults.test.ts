// The client over a stdio server that fails: it dies before it is initialized,
// or it answers with a line over the size limit. Each is reported at once with
// a typed error that names the cause.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpError } from "@mcp-effect/core"
import { NodeStdioTransport, StdioError, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { fileURLToPath } from "node:url"

const recordingServer = fileURLToPath(new URL("../test-fixtures/recording-server.mjs", import.meta.url))

const backends = [
  { name: "Node child_process", layer: NodeStdioTransport.layer },
  {
    name: "platform Command",
    layer: (options: StdioTransport.Options) => StdioTransport.layer(options).pipe(Layer.provide(NodeContext.layer))
  }
]

// the session warns about each failed initialize: expected here
const quiet = Logger.remove(Logger.defaultLogger)

for (const backend of backends) {
  const clientOver = (options: StdioTransport.Options) =>
    McpClient.layer({ clientInfo: { name: "integration", version: "1.0.0" } }).pipe(
      Layer.provide(backend.layer({ shutdown: { stdinGraceMillis: 200, termGraceMillis: 200 }, ...options })),
      Layer.provide(quiet)
    )

  describe(`stdio (${backend.name}): faults`, () => {
    it.scopedLive("a server that exits before it is initialized is reported quickly with its exit code and stderr", () =>
      Effect.gen(function*() {
        const started = Date.now()
        const client = yield* McpClient.McpClient
        const error = yield* Effect.flip(client.listTools)
        assert.instanceOf(error, McpError.TransportError)
        const transportError = error as McpError.TransportError
        assert.include(transportError.message, "exited with code 3")
        assert.include(transportError.message, "boom: API_TOKEN is not set")
        // the cause chain holds the details as fields
        const closed = transportError.cause as McpError.TransportError
        assert.instanceOf(closed, McpError.TransportError)
        const exited = closed.cause as StdioError.ServerExited
        assert.instanceOf(exited, StdioError.ServerExited)
        assert.strictEqual(exited.exitCode, 3)
        assert.deepStrictEqual(exited.stderrTail, ["boom: API_TOKEN is not set"])
        // a short first-connect budget, not the 23 s of the reconnect schedule (a generous bound)
        assert.isBelow(Date.now() - started, 10_000)
      }).pipe(
        Effect.provide(clientOver({
          command: process.execPath,
          args: ["-e", "console.error('boom: API_TOKEN is not set'); process.exit(3)"]
        }))
      ))

    it.scopedLive("an answer over the size limit settles the call at once instead of at its timeout", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const error = yield* Effect.flip(
          client.callTool({ name: "echo", arguments: { text: "x".repeat(128 * 1024) } }, { timeout: "5 minutes" })
        )
        assert.strictEqual(error._tag, "OutcomeUnknown")
        assert.include(error.message, "longer than the limit of 65536 bytes")
        // the session goes on over a new process
        const tools = yield* client.listTools
        assert.include(tools.map((tool) => tool.name), "echo")
      }).pipe(
        Effect.provide(clientOver({ command: process.execPath, args: [recordingServer], maxMessageBytes: 64 * 1024 }))
      ))
  })
}
