// The interop matrix: one suite of client features, run against each real server of the new era
// (official SDK v2 in its modes, @mastra/mcp 2.0) over each transport. Every suite starts its
// server once and runs its cases in order against it.
import { expect, layer } from "@effect/vitest"
import { Elicitation, McpClient, type McpTransport } from "@mcp-effect/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/** The resource the fixtures let us subscribe to (`bump` changes it). */
export const COUNTER_URI = "interop://counter"

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content
    .flatMap((c) => (c as { type: string; text?: string }).type === "text" ? [(c as { text: string }).text] : [])
    .join("\n")

const within = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: "15 seconds", onTimeout: () => new Error(`timed out: ${what}`) })

/** The user answers every form with the name Ada. */
const elicitation = Elicitation.layer((params) =>
  Effect.succeed(
    params.mode === "url" ? { action: "decline" as const } : { action: "accept" as const, content: { name: "Ada" } }
  ), { modes: ["form"] })

/** What a suite expects of its server, and the client options it connects with. */
export interface Expected {
  /** The version the client and this server agree on. */
  readonly protocolVersion: string
  readonly serverName: string
  /** Extra client options (an era pinned, say). */
  readonly client?: Partial<McpClient.Options> | undefined
}

/** Registers the interop suite `name` for a client over `transport`. */
export const interopSuite = <E>(
  name: string,
  transport: Layer.Layer<McpTransport.McpTransport, E>,
  expected: Expected
) => {
  const ClientLive = McpClient.layer({
    clientInfo: { name: "interop-test", version: "1.0.0" },
    ...expected.client
  }).pipe(
    Layer.provide(elicitation),
    Layer.provide(transport)
  )
  layer(ClientLive, { timeout: 60_000, excludeTestServices: true })(name, (it) => {
    it.effect("connect: agrees on the protocol version and names the server", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const init = yield* client.initialized
        expect(init.protocolVersion).toBe(expected.protocolVersion)
        expect(init.serverInfo.name).toBe(expected.serverName)
      }))

    it.effect("list: tools, resources and prompts", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const tools = (yield* client.listTools).map((t) => t.name)
        expect(tools).toEqual(
          expect.arrayContaining(["echo", "progress", "slow", "cancellations", "ask-name", "bump", "add-tool"])
        )
        expect((yield* client.listResources).map((r) => r.uri)).toContain(COUNTER_URI)
        expect((yield* client.listPrompts).map((p) => p.name)).toContain("greeting")
        const prompt = yield* client.getPrompt("greeting", { name: "Ada" })
        expect(prompt.messages[0].content).toMatchObject({ type: "text", text: "Say hello to Ada." })
      }))

    it.effect("call: a tool answers, and a resource reads", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.callTool({ name: "echo", arguments: { text: "hello interop" } })
        expect(text(result)).toBe("hello interop")
        const read = yield* client.readResource(COUNTER_URI)
        expect(read.contents[0]).toMatchObject({ uri: COUNTER_URI })
      }))

    it.effect("progress: each step arrives before the result", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const steps: Array<number> = []
        const result = yield* client.callTool(
          { name: "progress", arguments: { steps: 3 } },
          { onProgress: (p) => Effect.sync(() => steps.push(p.progress)) }
        )
        expect(text(result)).toBe("done after 3 steps")
        expect(steps).toEqual([1, 2, 3])
      }))

    it.effect("cancel: interrupting a call cancels it on the server", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const started = yield* Deferred.make<void>()
        // the slow tool reports progress once it runs: the request has reached the server
        const call = yield* Effect.fork(
          client.callTool({ name: "slow" }, { onProgress: () => Deferred.succeed(started, undefined) })
        )
        yield* within("the slow tool to start", Deferred.await(started))
        yield* Fiber.interrupt(call)
        const seen = yield* client.callTool({ name: "cancellations", arguments: { atLeast: 1 } })
        expect(JSON.parse(text(seen))).toHaveLength(1)
      }))

    it.effect("elicitation: the server asks, our Elicitation handler answers, the call completes", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.callTool({ name: "ask-name" })
        expect(text(result)).toBe("hello Ada")
      }))

    it.scoped("subscriptions: a changed resource sends an update", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const updates = yield* client.subscribeResourceUpdates
        yield* client.subscribe(COUNTER_URI)
        const bumped = yield* client.callTool({ name: "bump" })
        const update = yield* within(
          "the resource update",
          updates.pipe(Stream.filter((u) => u.uri === COUNTER_URI), Stream.runHead)
        )
        expect(update._tag).toBe("Some")
        const read = yield* client.readResource(COUNTER_URI)
        expect(read.contents[0]).toMatchObject({ text: text(bumped) })
        yield* client.unsubscribe(COUNTER_URI)
      }))

    it.effect("list changed: a tool added on the server appears in the live tool list", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.callTool({ name: "add-tool", arguments: { name: "added-later" } })
        const tools = yield* within(
          "the tools list_changed",
          client.tools.changes.pipe(Stream.filter((ts) => ts.some((t) => t.name === "added-later")), Stream.runHead)
        )
        expect(tools._tag).toBe("Some")
      }))
  })
}
