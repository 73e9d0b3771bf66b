/**
 * A small in-process MCP server over `InMemoryTransport`, for unit tests of
 * this library and of apps built on it. It answers `initialize` and `ping`
 * (legacy era) or `server/discover` and `subscriptions/listen` (modern era,
 * see `Options.era`), routes every other request to a handler, records what
 * it receives, and can send notifications and requests to the client or
 * drop the connection.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as InMemoryTransport from "./InMemoryTransport.js"
import * as JsonRpc from "./JsonRpc.js"
import * as McpError from "./McpError.js"
import * as McpSchema from "./McpSchema.js"
import * as McpTransport from "./McpTransport.js"

const modernVersion = McpSchema.MODERN_PROTOCOL_VERSION
const legacyVersion = McpSchema.LATEST_PROTOCOL_VERSION
const protocolVersionKey = McpSchema.MetaKey.ProtocolVersion
const serverInfoKey = McpSchema.MetaKey.ServerInfo
const subscriptionIdKey = McpSchema.MetaKey.SubscriptionId

/**
 * @since 0.1.0
 * @category models
 */
export interface RequestContext {
  readonly id: JsonRpc.RequestId
  readonly params: Record<string, unknown>
  /** Sends `notifications/progress` for this request (when the client sent a progress token). */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export type Handler = (context: RequestContext) => Effect.Effect<unknown, McpError.ProtocolError>

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly serverInfo?: { readonly name: string; readonly version: string } | undefined
  readonly capabilities?: Record<string, unknown> | undefined
  /** The version to answer with; default: the version the client offered. */
  readonly protocolVersion?: string | undefined
  readonly instructions?: string | undefined
  /** Handlers by method. */
  readonly handlers?: Readonly<Record<string, Handler>> | undefined
  readonly reconnect?: McpTransport.ReconnectOptions | undefined
  /**
   * Which protocol eras the server speaks. `"legacy"` (the default): it
   * answers `initialize` and `ping`, and anything else before `initialize`
   * like any unknown request. `"modern"`: it answers `server/discover`,
   * checks the protocol version in every request's `_meta` (refusing others
   * with `-32022`), answers `initialize` with `-32022`, and holds each
   * `subscriptions/listen` open after acknowledging it (unless a handler
   * for it is given). `"both"`: each
   * request is served in the era it comes in.
   *
   * @since 0.2.0
   */
  readonly era?: "legacy" | "modern" | "both" | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Every message received, across all connections, in order. */
  readonly received: Effect.Effect<ReadonlyArray<JsonRpc.Message>>
  /** How many connections the client has opened. */
  readonly connections: Effect.Effect<number>
  /** Sends a notification on the current connection. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Sends a request to the client on the current connection and waits for the answer. */
  readonly request: (
    method: string,
    params?: Record<string, unknown>
  ) => Effect.Effect<JsonRpc.Response>
  /** Sends raw input (e.g. a malformed frame) on the current connection. */
  readonly sendRaw: (message: JsonRpc.Incoming) => Effect.Effect<void>
  /** Ends the current connection, as if the server went away. */
  readonly dropConnection: Effect.Effect<void>
  /**
   * Fails the current connection, as a transport does on input it cannot use
   * (an oversized frame).
   *
   * @since 0.2.0
   */
  readonly failConnection: (error: McpTransport.ConnectionError) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TestServer extends Context.Tag("@mcp-effect/core/TestServer")<TestServer, Service>() {}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<TestServer | McpTransport.McpTransport> =>
  Layer.scopedContext(Effect.gen(function*() {
    const memory = yield* InMemoryTransport.make(options.reconnect)
    const received: Array<JsonRpc.Message> = []
    const era = options.era ?? "legacy"
    const versionOf = (request: JsonRpc.Request) =>
      (request.params?._meta as Record<string, unknown> | undefined)?.[protocolVersionKey]
    const isModern = (request: JsonRpc.Request) => versionOf(request) !== undefined
    const unsupported = (request: JsonRpc.Request, requested: unknown) =>
      JsonRpc.failure(request.id, {
        code: McpError.ErrorCode.UnsupportedProtocolVersion,
        message: "Unsupported protocol version",
        data: { supported: era === "both" ? [modernVersion, legacyVersion] : [modernVersion], requested }
      })
    /** A modern server's answer to a request it refuses before looking at the method, if it does. */
    const refuseModern = (request: JsonRpc.Request): JsonRpc.Response | undefined => {
      if (request.method === "initialize") {
        return era === "modern" ? unsupported(request, request.params?.protocolVersion) : undefined
      }
      const version = versionOf(request)
      if (version === undefined) {
        return era === "modern" ?
          JsonRpc.failure(request.id, {
            code: McpError.ErrorCode.InvalidParams,
            message: `missing _meta ${protocolVersionKey}`
          }) :
          undefined
      }
      return version === modernVersion ? undefined : unsupported(request, version)
    }
    const handlers = new Map(Object.entries(options.handlers ?? {}))
    let connectionCount = 0
    let current: InMemoryTransport.ServerEnd | undefined
    let nextId = 1
    const waiting = new Map<JsonRpc.RequestId, Deferred.Deferred<JsonRpc.Response>>()
    const running = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()

    const serve = (end: InMemoryTransport.ServerEnd) =>
      end.incoming.pipe(
        Stream.runForEach((message): Effect.Effect<void> => {
          received.push(message)
          if (!("method" in message)) {
            const deferred = message.id === null ? undefined : waiting.get(message.id)
            return deferred ? Deferred.succeed(deferred, message) : Effect.void
          }
          if (!("id" in message)) {
            if (message.method === "notifications/cancelled") {
              const fiber = running.get(message.params?.requestId as JsonRpc.RequestId)
              return fiber ? Fiber.interruptFork(fiber) : Effect.void
            }
            return Effect.void
          }
          const request = message
          const refusal = era === "legacy" ? undefined : refuseModern(request)
          if (refusal !== undefined) return end.send(refusal)
          if (era !== "legacy" && request.method === "server/discover") {
            return end.send(JsonRpc.success(request.id, {
              resultType: "complete",
              supportedVersions: era === "both" ? [modernVersion, legacyVersion] : [modernVersion],
              capabilities: options.capabilities ?? { tools: {} },
              ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
              _meta: { [serverInfoKey]: options.serverInfo ?? { name: "test-server", version: "1.0.0" } }
            }))
          }
          if (era !== "legacy" && request.method === "subscriptions/listen" && !handlers.has(request.method)) {
            // acknowledged at once, then held open until cancelled (its notifications are the test's to send)
            return Effect.asVoid(end.send(JsonRpc.notification("notifications/subscriptions/acknowledged", {
              _meta: { [subscriptionIdKey]: request.id },
              notifications: request.params?.notifications ?? {}
            })))
          }
          if (request.method === "initialize") {
            return end.send(JsonRpc.success(request.id, {
              protocolVersion: options.protocolVersion ?? request.params?.protocolVersion,
              capabilities: options.capabilities ?? { tools: {} },
              serverInfo: options.serverInfo ?? { name: "test-server", version: "1.0.0" },
              ...(options.instructions !== undefined ? { instructions: options.instructions } : {})
            }))
          }
          if (request.method === "ping" && !isModern(request)) return end.send(JsonRpc.success(request.id, {}))
          const handler = handlers.get(request.method)
          if (handler === undefined) {
            return end.send(JsonRpc.failure(request.id, {
              code: McpError.ErrorCode.MethodNotFound,
              message: `method not found: ${request.method}`
            }))
          }
          const token = (request.params?._meta as { progressToken?: JsonRpc.RequestId } | undefined)?.progressToken
          const context: RequestContext = {
            id: request.id,
            params: request.params ?? {},
            progress: (progress, total, message) =>
              token === undefined ?
                Effect.void :
                end.send(JsonRpc.notification("notifications/progress", {
                  progressToken: token,
                  progress,
                  ...(total !== undefined ? { total } : {}),
                  ...(message !== undefined ? { message } : {})
                }))
          }
          return handler(context).pipe(
            Effect.matchEffect({
              onSuccess: (result) => end.send(JsonRpc.success(request.id, result)),
              onFailure: (error) =>
                end.send(JsonRpc.failure(request.id, {
                  code: error.code,
                  message: error.message,
                  ...(error.data !== undefined ? { data: error.data } : {})
                }))
            }),
            Effect.ensuring(Effect.sync(() => running.delete(request.id))),
            Effect.fork,
            Effect.flatMap((fiber) => Effect.sync(() => running.set(request.id, fiber)))
          )
        })
      )

    yield* memory.accept.pipe(
      Effect.flatMap((end) =>
        Effect.sync(() => {
          connectionCount++
          current = end
        }).pipe(Effect.zipRight(Effect.forkScoped(serve(end))))
      ),
      Effect.forever,
      Effect.forkScoped
    )

    const onCurrent = (f: (end: InMemoryTransport.ServerEnd) => Effect.Effect<void>) =>
      Effect.suspend(() => current ? f(current) : Effect.dieMessage("TestServer: no connection yet"))

    const service: Service = {
      received: Effect.sync(() => [...received]),
      connections: Effect.sync(() => connectionCount),
      notify: (method, params) => onCurrent((end) => end.send(JsonRpc.notification(method, params))),
      request: (method, params) =>
        Effect.gen(function*() {
          const id = `server-${nextId++}`
          const deferred = yield* Deferred.make<JsonRpc.Response>()
          waiting.set(id, deferred)
          yield* onCurrent((end) => end.send(JsonRpc.request(id, method, params)))
          return yield* Deferred.await(deferred).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(id))))
        }),
      sendRaw: (message) => onCurrent((end) => end.send(message)),
      dropConnection: onCurrent((end) => end.close),
      failConnection: (error) => onCurrent((end) => end.fail(error))
    }
    return Context.make(TestServer, service).pipe(Context.add(McpTransport.McpTransport, memory.transport))
  }))

/**
 * Finds the first received message with the given method.
 *
 * @since 0.1.0
 * @category utils
 */
export const findReceived = (
  messages: ReadonlyArray<JsonRpc.Message>,
  method: string
): Option.Option<JsonRpc.Request | JsonRpc.Notification> =>
  Option.fromNullable(
    messages.find((m): m is JsonRpc.Request | JsonRpc.Notification => "method" in m && m.method === method)
  )
