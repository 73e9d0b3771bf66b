/**
 * mcp-effect demo: connects to an MCP server and walks through what the client does.
 *
 *   npm run demo                                  # spawns server-everything over stdio
 *   npm run demo -- -- npx -y some-mcp-server     # any stdio server
 *   npm run demo -- --url http://127.0.0.1:3001/mcp   # any Streamable HTTP server
 *   npm run demo -- --config examples/mcp.json    # many servers through the hub (examples/hubDemo.ts)
 *
 * Over HTTP the client is ready for OAuth: when the server answers 401, the
 * authorization-code flow runs, with a loopback callback on 127.0.0.1 and the
 * URL opened in a browser (and printed); tokens are kept encrypted in
 * ~/.mcp-effect-demo.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Elicitation, McpClient, McpError, Roots, Sampling } from "@mcp-effect/core"
import type { McpSchema, McpTransport } from "@mcp-effect/core"
import { NodeTokenStore, OAuthClient, UrlPolicy } from "@mcp-effect/oauth"
import * as NodeAuthorizer from "@mcp-effect/oauth/NodeAuthorizer"
import * as NodeHostResolver from "@mcp-effect/oauth/NodeHostResolver"
import { HttpTransport } from "@mcp-effect/transport-http"
import { NodeStdioTransport } from "@mcp-effect/transport-stdio"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

// ---- command line -------------------------------------------------------------------

const argv = process.argv.slice(2)
const urlIndex = argv.indexOf("--url")
const dashes = argv.indexOf("--")
const url = urlIndex >= 0 ? argv[urlIndex + 1] : undefined
const command = dashes >= 0 ? argv.slice(dashes + 1) : []
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
const [cmd, ...args] = command.length > 0 ? command : [process.execPath, everything, "stdio"]

/** Prints the authorization URL and tries to open it in the default browser. */
const openInBrowser = (target: URL) =>
  Effect.zipRight(
    NodeAuthorizer.printUrl(target),
    Effect.sync(() => {
      const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open"
      spawn(opener, [target.href], { stdio: "ignore", detached: true }).on("error", () => {}).unref()
    })
  )

const isLoopback = (target: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(target).hostname)

const OAuth = (target: string) =>
  OAuthClient.layerAuthorizationCode({
    urlPolicy: isLoopback(target) ? UrlPolicy.loopbackDevelopment : UrlPolicy.strict
  }).pipe(
    Layer.provide(NodeAuthorizer.layer({ open: openInBrowser })),
    Layer.provide(NodeTokenStore.layer({ directory: join(homedir(), ".mcp-effect-demo") })),
    // the URL guard also checks the addresses host names resolve to
    Layer.provide(NodeHostResolver.layer),
    Layer.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layerUndici)),
    Layer.orDie
  )

// either transport; each also carries services of its own (stdio logs, HTTP request headers) the client finds
const Transport: Layer.Layer<McpTransport.McpTransport, McpError.TransportError> = url !== undefined ?
  HttpTransport.layer({ url }).pipe(Layer.provide(OAuth(url)), Layer.provide(NodeHttpClient.layerUndici)) :
  NodeStdioTransport.layer({ command: cmd, args })

// ---- what this app answers when the server asks ---------------------------------------

const Handlers = Layer.mergeAll(
  Sampling.layer((params) =>
    Effect.succeed({
      role: "assistant" as const,
      model: "demo-model",
      content: { type: "text" as const, text: `(a demo model would answer ${params.messages.length} message(s) here)` }
    })
  ),
  Elicitation.layerAcceptDefaults,
  Roots.layer([{ uri: pathToFileURL(process.cwd()).href, name: "current directory" }])
)

const ClientLive = McpClient.layer({ clientInfo: { name: "mcp-effect-demo", version: "0.1.0" } }).pipe(
  Layer.provide(Handlers),
  Layer.provide(Transport)
)

// ---- output helpers -------------------------------------------------------------------

const heading = (title: string) => Console.log(`\n\x1b[1m== ${title}\x1b[0m`)
const textOf = (result: McpSchema.CallToolResult) =>
  result.content.map((c) => c.type === "text" ? c.text : `[${c.type}]`).join(" ").replace(/\s+/g, " ").slice(0, 160)
const bar = (done: number, total: number) => {
  const width = 24
  const filled = Math.round((done / total) * width)
  return `[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`
}
const flags = (annotations: McpSchema.ToolAnnotations | undefined) =>
  Object.entries(annotations ?? {}).filter(([k, v]) => k.endsWith("Hint") && v === true).map(([k]) =>
    k.replace("Hint", "")
  ).join(",")

/** Runs a section; a server without the feature is reported, not fatal. */
const section = <A, R>(title: string, body: Effect.Effect<A, McpError.McpClientError, R>) =>
  heading(title).pipe(
    Effect.zipRight(body),
    Effect.catchIf(
      (e): e is McpError.UnsupportedCapability => e._tag === "UnsupportedCapability",
      (e) => Console.log(`  (not supported by this server: ${e.capability})`)
    )
  )

// ---- the walk-through -----------------------------------------------------------------

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const init = yield* client.initialized
  yield* heading("Server")
  yield* Console.log(`  ${init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion})`)
  yield* Console.log(`  capabilities: ${Object.keys(init.capabilities).join(", ")}`)

  const tools = yield* client.listTools
  yield* section(
    `Tools (${tools.length})`,
    Effect.forEach(
      tools,
      (tool) =>
        Console.log(
          `  - ${tool.name.padEnd(34)} ${flags(tool.annotations).padEnd(28)} ${
            tool.execution?.taskSupport === "required" ? "task required" : ""
          }`
        )
    )
  )
  const has = (name: string) => tools.some((t) => t.name === name)

  if (has("echo")) {
    yield* section(
      "A tool call",
      Effect.flatMap(
        client.callTool({ name: "echo", arguments: { message: "hello from Effect" } }),
        (r) => Console.log(`  echo -> ${textOf(r)}`)
      )
    )
  }

  if (has("trigger-long-running-operation")) {
    yield* section(
      "A long-running call with live progress",
      client.callToolStream({ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 10 } }).pipe(
        Stream.runForEach((event) =>
          event._tag === "Progress" ?
            Effect.sync(() =>
              process.stdout.write(
                `${process.stdout.isTTY ? "\r" : ""}  ${bar(event.progress.progress, event.progress.total ?? 10)}` +
                  (process.stdout.isTTY ? "" : "\n")
              )
            ) :
            event._tag === "Result" ?
            Console.log(`${process.stdout.isTTY ? "\n" : ""}  ${textOf(event.result)}`) :
            Effect.void
        )
      )
    )

    yield* section(
      "A call cancelled mid-way (a fiber interrupt sends notifications/cancelled)",
      Effect.gen(function*() {
        let steps = 0
        const fiber = yield* Effect.fork(
          client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 5, steps: 10 } }, {
            onProgress: (p) => Effect.sync(() => steps = p.progress)
          })
        )
        yield* Effect.sleep("1200 millis")
        yield* Fiber.interrupt(fiber)
        yield* Console.log(`  interrupted after ${steps}/10 steps: notifications/cancelled went to the server`)
        const started = Date.now()
        yield* client.ping
        yield* Console.log(`  session still healthy: ping answered in ${Date.now() - started} ms`)
      })
    )
  }

  if (has("simulate-research-query")) {
    yield* section(
      "A task-augmented call followed to completion",
      client.callToolStream({ name: "simulate-research-query", arguments: { topic: "Effect-native MCP clients" } })
        .pipe(
          Stream.runForEach((event) =>
            event._tag === "TaskStatus" ?
              Console.log(
                `  task ${event.task.taskId.slice(0, 8)}: ${event.task.status} ${event.task.statusMessage ?? ""}`
              ) :
              event._tag === "Result" ?
              Console.log(`  result: ${textOf(event.result).slice(0, 100)}...`) :
              Effect.void
          )
        )
    )
  }

  yield* section(
    "Resources",
    Effect.gen(function*() {
      const resources = yield* client.listResources
      yield* Console.log(`  ${resources.length} resources, e.g.:`)
      yield* Effect.forEach(resources.slice(0, 3), (r) => Console.log(`  - ${r.uri} (${r.mimeType ?? "?"})`))
      if (resources[0]) {
        const read = yield* client.readResource(resources[0].uri)
        const first = read.contents[0]
        yield* Console.log(
          `  read ${resources[0].uri}: ${
            "text" in first ? `${first.text.replace(/\s+/g, " ").slice(0, 60)}...` : "(blob)"
          }`
        )
      }
      const templates = yield* client.listResourceTemplates
      yield* Effect.forEach(templates.slice(0, 2), (t) => Console.log(`  template ${t.uriTemplate}`))
    })
  )

  yield* section(
    "Prompts",
    Effect.gen(function*() {
      const prompts = yield* client.listPrompts
      yield* Effect.forEach(
        prompts,
        (p) => Console.log(`  - ${p.name}(${(p.arguments ?? []).map((a) => a.name).join(", ")})`)
      )
      const simple = prompts.find((p) => (p.arguments ?? []).every((a) => !a.required))
      if (simple) {
        const prompt = yield* client.getPrompt(simple.name)
        yield* Console.log(`  ${simple.name} -> ${prompt.messages.length} message(s)`)
      }
    })
  )
  yield* Console.log("\ndone.")
})

if (argv.includes("--config")) {
  void import("./hubDemo.js").then((hub) => hub.main())
} else {
  void runDemo()
}

function runDemo() {
  return program.pipe(
    Effect.provide(ClientLive),
    Logger.withMinimumLogLevel(LogLevel.Error),
    Effect.catchAll((error) =>
      Console.error(
        `demo failed: ${McpError.isMcpClientError(error) ? `${error._tag}: ${error.message}` : String(error)}`
      )
        .pipe(Effect.zipRight(Effect.sync(() => process.exitCode = 1)))
    ),
    Effect.runPromise
  ).then(() => process.exit(process.exitCode ?? 0))
}
