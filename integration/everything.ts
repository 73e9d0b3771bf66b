// The client against @modelcontextprotocol/server-everything: every feature of the server that
// the client covers, as one suite run over each transport.
import { expect, layer } from "@effect/vitest"
import { Elicitation, McpClient, type McpTransport, Roots, Sampling } from "@mcp-effect/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"

/** The server's entry point (`node <it> stdio` or `PORT=<port> node <it> streamableHttp`). */
export const everythingEntry = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js"
)

const elicited: Array<string> = []
const handlers = Layer.mergeAll(
  Sampling.layer((params) =>
    Effect.succeed({
      role: "assistant" as const,
      model: "integration-model",
      content: { type: "text" as const, text: `sampled ${params.maxTokens} tokens` }
    })
  ),
  Elicitation.layer((params) =>
    Effect.sync(() => {
      elicited.push(params.message)
      if (params.mode === "url") return { action: "decline" as const }
      const content = Elicitation.applyDefaults(params.requestedSchema, { name: "Ada", interpretation: "technical" })
      return { action: "accept" as const, content }
    }), { modes: ["form", "url"] }),
  Roots.layer([{ uri: "file:///tmp/project", name: "project" }])
)

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((c) =>
    (c as { type: string; text?: string }).type === "text" ? [(c as { text: string }).text] : []
  )
    .join("\n")

/** The tools that server-everything registers once it knows the client's capabilities. */
const toolsIncluding = (name: string) =>
  Effect.flatMap(McpClient.McpClient, (client) =>
    client.tools.changes.pipe(
      Stream.filter((tools) => tools.some((t) => t.name === name)),
      Stream.runHead,
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`no tool ${name}`) })
    ))

/**
 * Registers the server-everything suite for a client built over `transport`.
 */
export const everythingSuite = <E>(name: string, transport: Layer.Layer<McpTransport.McpTransport, E>) => {
  const ClientLive = McpClient.layer({ clientInfo: { name: "everything-test", version: "1.0.0" } }).pipe(
    Layer.provide(handlers),
    Layer.provide(transport)
  )
  layer(ClientLive, { timeout: 60_000, excludeTestServices: true })(name, (it) => {
    it.effect("initializes and lists tools, including those that depend on our capabilities", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const init = yield* client.initialized
        expect(init.protocolVersion).toBe("2025-11-25")
        expect(init.capabilities.tools).toBeDefined()
        yield* toolsIncluding("simulate-research-query")
        const tools = yield* client.listTools
        const names = tools.map((t) => t.name)
        for (const name of ["echo", "get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"]) {
          expect(names).toContain(name)
        }
        const long = tools.find((t) => t.name === "trigger-long-running-operation")!
        expect(long.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
      }))

    it.effect("reports progress of a long-running operation", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const events = yield* client.callToolStream({
          name: "trigger-long-running-operation",
          arguments: { duration: 0.5, steps: 5 }
        }).pipe(Stream.runCollect)
        const progress = Chunk.toReadonlyArray(events).flatMap((e) =>
          e._tag === "Progress" ? [e.progress.progress] : []
        )
        expect(progress).toEqual([1, 2, 3, 4, 5])
        const last = Chunk.unsafeLast(events)
        expect(last._tag === "Result" && text(last.result)).toContain("Long running operation completed")
      }))

    it.effect("answers sampling, elicitation and roots requests", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* toolsIncluding("trigger-sampling-request")
        const sampled = yield* client.callTool({
          name: "trigger-sampling-request",
          arguments: { prompt: "hello", maxTokens: 42 }
        })
        expect(text(sampled)).toContain("sampled 42 tokens")
        const elicitation = yield* client.callTool({ name: "trigger-elicitation-request" })
        expect(text(elicitation)).toContain("Ada")
        expect(text(elicitation)).toContain("It was a dark and stormy night.")
        const roots = yield* client.callTool({ name: "get-roots-list" })
        expect(text(roots)).toContain("file:///tmp/project")
      }))

    it.effect("returns structured content and resource links", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const weather = yield* client.callTool({ name: "get-structured-content", arguments: { location: "New York" } })
        expect(weather.structuredContent).toMatchObject({ temperature: 33, conditions: "Cloudy" })
        const tool = (yield* client.listTools).find((t) => t.name === "get-structured-content")!
        expect(tool.outputSchema).toMatchObject({ type: "object" })
        const links = yield* client.callTool({ name: "get-resource-links", arguments: { count: 2 } })
        const resourceLinks = links.content.filter((c) => c.type === "resource_link")
        expect(resourceLinks).toHaveLength(2)
        const read = yield* client.readResource((resourceLinks[0] as { uri: string }).uri)
        expect(read.contents.length).toBeGreaterThan(0)
      }))

    it.effect("lists resources and templates, subscribes and receives updates", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const resources = yield* client.listResources
        expect(resources.length).toBeGreaterThan(0)
        expect((yield* client.listResourceTemplates).length).toBeGreaterThan(0)
        const uri = resources[0].uri
        yield* client.subscribe(uri)
        const update = yield* Effect.fork(
          client.resourceUpdates.pipe(Stream.filter((u) => u.uri === uri), Stream.runHead)
        )
        yield* Effect.sleep("20 millis")
        yield* client.callTool({ name: "toggle-subscriber-updates" })
        const received = yield* update.await
        expect(received._tag).toBe("Success")
        yield* client.callTool({ name: "toggle-subscriber-updates" })
        yield* client.unsubscribe(uri)
      }))

    it.effect("lists prompts, gets one, and completes its arguments", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const prompts = yield* client.listPrompts
        expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["simple-prompt", "completable-prompt"]))
        const prompt = yield* client.getPrompt("completable-prompt", { department: "Sales", name: "Eve" })
        expect(prompt.messages[0].content).toMatchObject({ text: "Please promote Eve to the head of the Sales team." })
        const completion = yield* client.complete({
          ref: { type: "ref/prompt", name: "completable-prompt" },
          argument: { name: "name", value: "" },
          context: { arguments: { department: "Engineering" } }
        })
        expect(completion.completion.values).toEqual(["Alice", "Bob", "Charlie"])
      }))

    it.effect("sets the log level and receives log messages", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.setLoggingLevel("debug")
        const message = yield* Effect.fork(client.logMessages.pipe(Stream.runHead))
        yield* Effect.sleep("20 millis")
        yield* client.callTool({ name: "toggle-simulated-logging" })
        const received = yield* message.await
        expect(received._tag).toBe("Success")
        yield* client.callTool({ name: "toggle-simulated-logging" })
      }))

    it.effect("runs simulate-research-query as a task, through input_required, to the real result", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* toolsIncluding("simulate-research-query")
        const events = Chunk.toReadonlyArray(
          yield* client.callToolStream({
            name: "simulate-research-query",
            arguments: { topic: "effect systems", ambiguous: true }
          }).pipe(Stream.runCollect)
        )
        const statuses = events.flatMap((e) => e._tag === "TaskStatus" ? [e.task.status] : [])
        expect(statuses[0]).toBe("working")
        const result = events.at(-1)!
        expect(result._tag).toBe("Result")
        const report = result._tag === "Result" ? text(result.result) : ""
        expect(report).toContain("Research Report: effect systems")
        expect(elicited.some((m) => m.includes("effect systems"))).toBe(true)
      }))
  })
}
