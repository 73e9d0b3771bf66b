// The two real servers the golden tests format: server-everything and the
// filesystem server, each a child process over stdio.
import { Elicitation, McpClient, Roots, Sampling } from "@mcp-effect/core"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const everythingEntry = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const filesystemEntry = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")

const clientInfo = { name: "formats-golden", version: "1.0.0" }

/** server-everything, with the handlers that make it register all of its tools. */
export const everything = McpClient.layer({ clientInfo }).pipe(
  Layer.provide(Layer.mergeAll(
    Sampling.layer(() =>
      Effect.succeed({ role: "assistant" as const, model: "m", content: { type: "text" as const, text: "" } })
    ),
    Elicitation.layer(() => Effect.succeed({ action: "decline" as const })),
    Roots.layer([])
  )),
  Layer.provide(NodeStdioTransport.layer({ command: process.execPath, args: [everythingEntry, "stdio"] }))
)

/** The filesystem server, allowed `root` only (no roots capability, so it keeps that directory). */
export const filesystem = (root: string) =>
  McpClient.layer({ clientInfo }).pipe(
    Layer.provide(NodeStdioTransport.layer({ command: process.execPath, args: [filesystemEntry, root] }))
  )

/** The server's tools once the ones registered after initialization are there, sorted by name. */
export const toolsWith = (names: ReadonlyArray<string>) =>
  Effect.flatMap(McpClient.McpClient, (client) =>
    client.tools.changes.pipe(
      Stream.filter((tools) => names.every((name) => tools.some((t) => t.name === name))),
      Stream.runHead,
      Effect.flatten,
      Effect.map((tools) => [...tools].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      Effect.timeoutFail({
        duration: "20 seconds",
        onTimeout: () => new Error(`tools ${names.join(", ")} never listed`)
      })
    ))
