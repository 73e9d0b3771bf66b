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
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const recordingServer = fileURLToPath(new URL("../test-fixtures/recording-server.mjs", import.meta.url))
const filesystemServer = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js")

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
  const clientOver = (options: StdioTransport.Options, trusted = false) =>
    McpClient.layer({ clientInfo: { name: "integration", version: "1.0.0" }, trusted }).pipe(
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

    it.scopedLive("a trusted server's read-only tool whose answer is over the size limit fails once and is not replayed", () =>
      Effect.gen(function*() {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-oversize-"))),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const file = Path.join(dir, "big.txt")
        Fs.writeFileSync(file, "0123456789\n".repeat(12 * 1024))
        const client = yield* McpClient.McpClient
        const tools = yield* client.listTools
        assert.strictEqual(tools.find((tool) => tool.name === "read_text_file")?.annotations?.readOnlyHint, true)
        const started = Date.now()
        // replayed, the same answer would end every next process until the reconnect schedule gives up
        const error = yield* Effect.flip(
          client.callTool({ name: "read_text_file", arguments: { path: file } }, { timeout: "5 minutes" })
        )
        assert.deepInclude(error, { _tag: "TransportError", phase: "message-size" })
        assert.include(error.message, "longer than the limit of 65536 bytes")
        assert.isBelow(Date.now() - started, 10_000)
        // the server is still usable on a new process
        const listed = yield* client.callTool({ name: "list_directory", arguments: { path: dir } })
        assert.include(JSON.stringify(listed.content), "big.txt")
      }).pipe(
        Effect.provide(clientOver({
          command: process.execPath,
          args: [filesystemServer, Os.tmpdir()],
          maxMessageBytes: 64 * 1024
        }, true))
      ))
  })
}
