import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describeUrl } from "./config.js"
import type { Ctx } from "./context.js"
import { discard, type ExchangeError, httpError } from "./exchange.js"
import { consume, isEventStream, makeProgress } from "./streams.js"

/**
 * Opens the 2024-11-05 HTTP+SSE transport: GET the URL, wait for the
 * `endpoint` event (same origin only), then read every message from that
 * stream. When the stream ends, so does the connection.
 *
 * @internal
 */
export const open = (ctx: Ctx): Effect.Effect<URL, ExchangeError> =>
  Effect.gen(function*() {
    const { config } = ctx
    const response = yield* ctx.execute({
      method: "GET",
      accept: "text/event-stream",
      headers: {},
      phase: "legacy-get",
      connectTimeout: true
    })
    if (response.status < 200 || response.status >= 300 || !isEventStream(response)) {
      yield* discard(config, response)
      return yield* Effect.fail(httpError(config, "legacy-get", response.status, "GET (HTTP+SSE)"))
    }
    const endpoint = yield* Deferred.make<URL, McpError.TransportError>()
    const onEvent = (event: { readonly event: string; readonly data: string }) =>
      Effect.suspend(() => {
        if (event.event !== "endpoint") return Effect.void
        let url: URL | undefined
        try {
          url = new URL(event.data.trim(), config.url)
        } catch {
          url = undefined
        }
        return url !== undefined && url.origin === config.url.origin
          ? Deferred.succeed(endpoint, url)
          : Deferred.fail(
            endpoint,
            new McpError.TransportError({
              reason: "Connect",
              phase: "legacy-get",
              message: `the HTTP+SSE server at ${config.description} named an endpoint that is not on its origin`
            })
          )
      })
    const closed = (reason: "Read" | "Closed", detail: string) =>
      new McpError.TransportError({
        reason,
        phase: "legacy-stream",
        message: `the HTTP+SSE stream of ${config.description} ${detail}`
      })
    yield* ctx.fork(
      consume(ctx, response, makeProgress(), "legacy-stream", undefined, onEvent).pipe(
        Effect.either,
        Effect.flatMap((outcome) => {
          const error = Either.isLeft(outcome)
            ? closed("Read", `broke: ${outcome.left.message}`)
            : closed("Closed", "ended")
          return Effect.zipRight(Deferred.fail(endpoint, error), ctx.fail(error))
        })
      )
    )
    return yield* Deferred.await(endpoint).pipe(
      Effect.timeoutFail({
        duration: config.connectMillis,
        onTimeout: () => closed("Read", `named no endpoint within ${config.connectMillis} ms`)
      })
    )
  })

/**
 * Sends one message to the HTTP+SSE endpoint; answers arrive on the stream.
 *
 * @internal
 */
export const post = (ctx: Ctx, endpoint: URL, message: JsonRpc.Message): Effect.Effect<void, ExchangeError> =>
  Effect.gen(function*() {
    const response = yield* ctx.execute({
      method: "POST",
      url: endpoint,
      body: JsonRpc.encode(message),
      rpcMethod: "method" in message ? message.method : undefined,
      accept: "application/json, text/event-stream",
      headers: {},
      phase: "legacy-post",
      connectTimeout: true
    })
    yield* discard(ctx.config, response)
    if (response.status < 200 || response.status >= 300) {
      return yield* Effect.fail(
        new McpError.TransportError({
          reason: "Http",
          phase: "legacy-post",
          status: response.status,
          message: `POST ${describeUrl(endpoint)} answered HTTP ${response.status}`
        })
      )
    }
  })
