// The client over a real stdio process: a fixture server built with the official
// SDK that records every message it receives.
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Elicitation, McpClient, Roots, Sampling } from "@mcp-effect/core"
import { NodeStdioTransport, StdioTransport } from "@mcp-effect/transport-stdio"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("../test-fixtures/recording-server.mjs", import.meta.url))

interface Recorded {
  readonly pid: number
  readonly event?: string
  readonly requestId?: string | number
  readonly message?: { method?: string; id?: string | number; params?: any }
}

const recorder = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-record-")), "log.ndjson")
  const read = (): Array<Recorded> =>
    existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []
  return { file, read, messages: (method: string) => read().filter((r) => r.message?.method === method) }
}

const waitFor = <A>(check: () => A | undefined | false, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const value = check()
      if (value) return value
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })

const serverOptions = (file: string): StdioTransport.Options => ({
  command: process.execPath,
  args: [fixture],
  env: { RECORD_FILE: file },
  reconnect: { schedule: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(5))) },
  shutdown: { stdinGraceMillis: 500, termGraceMillis: 500 }
})

const backends = [
  {
    name: "Node child_process",
    transport: (file: string) => NodeStdioTransport.layer(serverOptions(file))
  },
  {
    name: "platform Command",
    transport: (file: string) => StdioTransport.layer(serverOptions(file)).pipe(Layer.provide(NodeContext.layer))
  }
]

const handlers = Layer.mergeAll(
  Sampling.layer((params) =>
    Effect.succeed({
      role: "assistant" as const,
      model: "fake-model",
      content: { type: "text" as const, text: `you asked "${(params.messages[0].content as { text: string }).text}"` }
    })
  ),
  Elicitation.layerAcceptDefaults,
  Roots.layer([{ uri: "file:///projects/a", name: "a" }])
)

for (const backend of backends) {
  const clientOver = (file: string, extra: Partial<McpClient.Options> = {}) =>
    McpClient.layer({ clientInfo: { name: "integration", version: "1.0.0" }, ...extra }).pipe(
      Layer.provideMerge(backend.transport(file))
    )

  describe(`stdio (${backend.name}): SDK fixture server`, () => {
    it.scopedLive("calls tools and reports progress", () => {
      const rec = recorder()
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const tools = yield* client.listTools
        expect(tools.map((t) => t.name)).toContain("echo")
        expect(yield* client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
          content: [{ type: "text", text: "hi" }]
        })
        const progress: Array<number> = []
        const result = yield* client.callTool(
          { name: "slow", arguments: { steps: 3, intervalMs: 10 } },
          { onProgress: (p) => Effect.sync(() => progress.push(p.progress)) }
        )
        expect(result.content).toEqual([{ type: "text", text: "done after 3 steps" }])
        expect(progress).toEqual([1, 2, 3])
      }).pipe(Effect.provide(clientOver(rec.file)))
    })

    it.scopedLive("interrupting a call delivers notifications/cancelled with its id, and the server stops", () => {
      const rec = recorder()
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const fiber = yield* Effect.fork(
          client.callTool({ name: "slow", arguments: { steps: 100, intervalMs: 50 } })
        )
        const [call] = yield* waitFor(
          () => rec.messages("tools/call").length > 0 && rec.messages("tools/call"),
          "the call"
        )
        yield* Fiber.interrupt(fiber)
        const [cancelled] = yield* waitFor(
          () => rec.messages("notifications/cancelled").length > 0 && rec.messages("notifications/cancelled"),
          "the cancellation"
        )
        expect(cancelled.message?.params.requestId).toBe(call.message?.id)
        const aborted = yield* waitFor(() => rec.read().find((r) => r.event === "aborted"), "the server to abort")
        expect(aborted.requestId).toBe(call.message?.id)
        // initialize is never cancelled, and the session goes on
        expect(rec.messages("notifications/cancelled")).toHaveLength(1)
        expect(yield* client.callTool({ name: "echo", arguments: { text: "after" } })).toMatchObject({
          content: [{ text: "after" }]
        })
      }).pipe(Effect.provide(clientOver(rec.file)))
    })

    it.scopedLive("without handler services no client capability is advertised", () => {
      const rec = recorder()
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const [init] = rec.messages("initialize")
        expect(init.message?.params.capabilities).toEqual({})
        const sampled = yield* client.callTool({ name: "sample", arguments: { prompt: "x" } })
        expect(sampled.isError).toBe(true)
      }).pipe(Effect.provide(clientOver(rec.file)))
    })

    it.scopedLive("sampling, elicitation and roots handlers answer the server and are advertised", () => {
      const rec = recorder()
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const [init] = rec.messages("initialize")
        expect(Object.keys(init.message?.params.capabilities).sort()).toEqual(["elicitation", "roots", "sampling"])
        expect(yield* client.callTool({ name: "sample", arguments: { prompt: "hello" } })).toMatchObject({
          content: [{ text: `model fake-model said: you asked "hello"` }]
        })
        expect(yield* client.callTool({ name: "elicit" })).toMatchObject({
          content: [{ text: `accept: {"name":"anonymous"}` }]
        })
        expect(yield* client.callTool({ name: "roots" })).toMatchObject({ content: [{ text: "file:///projects/a" }] })
      }).pipe(Effect.provide(Layer.provide(clientOver(rec.file), handlers)))
    })

    it.scopedLive("a server crash mid-call gives OutcomeUnknown, and a new process serves the next call", () => {
      const rec = recorder()
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const first = (yield* client.callTool({ name: "pid" })).content[0]
        const error = yield* Effect.flip(client.callTool({ name: "crash" }))
        expect(error).toMatchObject({ _tag: "OutcomeUnknown", toolName: "crash" })
        const second = (yield* client.callTool({ name: "pid" })).content[0]
        expect(second).not.toEqual(first)
        expect(rec.messages("tools/call").filter((r) => r.message?.params.name === "crash")).toHaveLength(1)
        expect((yield* client.initialized).generation).toBe(2)
      }).pipe(Effect.provide(clientOver(rec.file)))
    })

    it.scopedLive("garbage on stdout is reported, and the session survives", () => {
      const rec = recorder()
      // the session warns about each malformed line: captured and asserted, not printed
      const warnings: Array<unknown> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") warnings.push(message)
        })
      )
      return Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.initialized
        const malformed = yield* Effect.fork(client.session.malformed.pipe(Stream.take(2), Stream.runCollect))
        yield* Effect.sleep("20 millis") // let the subscription start
        expect(yield* client.callTool({ name: "garbage" })).toMatchObject({ content: [{ text: "still here" }] })
        expect(yield* client.callTool({ name: "echo", arguments: { text: "ok" } })).toMatchObject({
          content: [{ text: "ok" }]
        })
        const reasons = Chunk.toReadonlyArray(yield* Fiber.join(malformed)).map((e) => e.reason)
        expect(reasons).toEqual(["Json", "Envelope"])
        expect((yield* client.initialized).generation).toBe(1)
        expect(warnings.map((message) => (message as Array<string>)[0])).toEqual([
          "mcp: ignored malformed input",
          "mcp: ignored malformed input"
        ])
      }).pipe(Effect.provide(clientOver(rec.file).pipe(Layer.provide(capture))))
    })
  })
}
