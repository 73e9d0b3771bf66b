import type * as JsonRpc from "@mcp-effect/core/JsonRpc"
import type * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as NodeStdioTransport from "../src/NodeStdioTransport.js"
import * as StdioTransport from "../src/StdioTransport.js"

export const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

export const nodeServer = (script: string, ...args: Array<string>): StdioTransport.Options => ({
  command: process.execPath,
  args: [fixture(script), ...args]
})

/** Alive and not a zombie waiting to be reaped. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat[stat.lastIndexOf(")") + 2] !== "Z"
  } catch {
    return false
  }
}

/** Polls until the process is gone (an orphan is reaped by init, not by us). */
export const awaitGone = (pid: number, withinMillis: number): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const deadline = Date.now() + withinMillis
    while (isAlive(pid)) {
      if (Date.now() > deadline) return false
      yield* Effect.sleep("10 millis")
    }
    return true
  })

export interface Reader {
  /** The next incoming value, or `None` once the stream ended. */
  readonly next: Effect.Effect<Option.Option<JsonRpc.Incoming>, McpTransport.ConnectionError>
  readonly send: (message: JsonRpc.Message) => Effect.Effect<void, McpTransport.ConnectionError>
  /** Sends a request and waits for the response with its id. */
  readonly call: (
    id: number,
    method: string,
    params?: Record<string, unknown>
  ) => Effect.Effect<JsonRpc.Response, McpTransport.ConnectionError | Error>
}

export const reader = (connection: McpTransport.Connection): Effect.Effect<Reader, never, Scope.Scope> =>
  Effect.gen(function*() {
    // what the connection's inbound buffer hands on, then its end (kept, for every later read)
    const queue = yield* Queue.unbounded<Exit.Exit<JsonRpc.Incoming, Option.Option<McpTransport.ConnectionError>>>()
    let end: Exit.Exit<never, Option.Option<McpTransport.ConnectionError>> | undefined
    const stop = connection.inbound.listen(
      (messages) => {
        for (const message of messages) queue.unsafeOffer(Exit.succeed(message))
      },
      (error) => {
        end = Exit.fail(error === undefined ? Option.none() : Option.some(error))
        queue.unsafeOffer(end)
      }
    )
    yield* Effect.addFinalizer(() => Effect.sync(stop))
    const next = Effect.flatMap(Queue.take(queue), (exit) => {
      if (Exit.isFailure(exit) && end !== undefined) queue.unsafeOffer(end)
      return Exit.match(exit, {
        onSuccess: Effect.succeedSome,
        onFailure: (cause) =>
          Effect.catchAll(
            Effect.failCause(cause),
            Option.match({ onNone: () => Effect.succeedNone, onSome: Effect.fail })
          )
      })
    })
    const nextValue = Effect.flatMap(
      next,
      Option.match({
        onNone: () => Effect.fail(new Error("incoming ended")),
        onSome: Effect.succeed
      })
    )
    const call = (id: number, method: string, params?: Record<string, unknown>) =>
      Effect.gen(function*() {
        yield* connection.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })
        while (true) {
          const value = yield* nextValue
          if (!("_tag" in value) && !("method" in value) && value.id === id) return value
        }
      })
    return { next, send: connection.send, call } as Reader
  })

export const result = (response: JsonRpc.Response): any => "result" in response ? response.result : response.error

/** Both process backends run every transport test. */
export const backends = [
  { name: "platform Command", make: StdioTransport.make, layerConfig: StdioTransport.layerConfig },
  { name: "Node child_process", make: NodeStdioTransport.make, layerConfig: NodeStdioTransport.layerConfig }
] as const
