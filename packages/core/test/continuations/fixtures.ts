/**
 * A fake 2026-07-28 server and the calls the continuation tests make: a
 * request as the session makes it (first round, then its input rounds), a
 * call through a client that has `Continuations` in its context, and another
 * process's client for the same server.
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as ClientSession from "../../src/ClientSession.js"
import type * as Continuations from "../../src/Continuations.js"
import type * as Elicitation from "../../src/Elicitation.js"
import * as InputRounds from "../../src/internal/era/inputRounds.js"
import * as Handlers from "../../src/internal/handlers.js"
import { currentTracker, trackerOf } from "../../src/internal/policy/continuationHooks.js"
import type * as McpError from "../../src/McpError.js"

export const ask = (message: string) => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: { name: { type: "string" } } } }
})

export const inputRequired = (state: string, key = "name") => ({
  resultType: "input_required",
  inputRequests: { [key]: ask("your name?") },
  requestState: state
})

export const done = (text: string) => ({ resultType: "complete", content: [{ type: "text", text }] })

type Params = Record<string, unknown> | undefined

/** A fake 2026-07-28 server: answers each request from the script, and records the params it received. */
export const scriptedServer = (script: ReadonlyArray<unknown>) => {
  const received: Array<Params> = []
  const send = (params: Params): Effect.Effect<unknown, McpError.McpClientError> =>
    Effect.sync(() => {
      received.push(params)
      return script[Math.min(received.length, script.length) - 1]
    })
  return { received, send, retries: () => received.filter((p) => p !== undefined && "inputResponses" in p) }
}

export type Server = ReturnType<typeof scriptedServer>

/** A request as the session makes it (first round, then its input rounds), in a process with `handlers`. */
export const request = (
  server: Server,
  method: string,
  params: Params,
  handlers: ReadonlyMap<string, ClientSession.ServerRequestHandler>
) =>
  Effect.flatMap(
    server.send(params),
    (first) =>
      InputRounds.run(
        method,
        first,
        (answers) => server.send(InputRounds.withAnswers(params, answers)),
        handlers,
        params
      )
  )

/** A call made through a client that has `Continuations` in its context (server key `weather`). */
export const call = (
  service: Continuations.Service,
  server: Server,
  handlers: ReadonlyMap<string, ClientSession.ServerRequestHandler> = new Map(),
  params: Params = { name: "forecast", arguments: { city: "Oslo" } }
) =>
  Effect.locally(
    request(server, "tools/call", params, handlers),
    currentTracker,
    trackerOf(service, Effect.succeed("weather"))
  )

/** Another process's client for the same server: no handlers of its own. */
export const clientOf = (server: Server): Continuations.Sender => ({
  session: { request: (method, params) => request(server, method, params, new Map()) }
})

export const handlersOf = (layer: Layer.Layer<Elicitation.Elicitation>) =>
  Effect.map(Effect.provide(Handlers.fromContext, layer), (context) => new Map(Object.entries(context.handlers)))

/** The pending continuations, once there are `count` (the caller runs on a fiber of its own). */
export const pending = (service: Continuations.Service, count = 1) =>
  Effect.zipRight(Effect.yieldNow(), service.list()).pipe(
    Effect.filterOrFail((list) => list.length >= count),
    Effect.retry({ times: 10_000 }),
    Effect.orDie
  )

export const accept = { action: "accept", content: { name: "Ada" } }
