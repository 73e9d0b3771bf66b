import * as Socket from "@effect/platform/Socket"
import * as JsonRpc from "@mcp-effect/core/JsonRpc"
import * as McpError from "@mcp-effect/core/McpError"
import * as McpTransport from "@mcp-effect/core/McpTransport"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"
import * as CloseCodes from "./closeCodes.js"
import type { Config } from "./config.js"

/** @internal */
export const subprotocol = "mcp"

// how often a send waiting for the socket's outgoing buffer to drain looks again (browsers have no drain event)
const drainPollMillis = 10

// `ws` names these in its error events; browsers give no reason at all
const tooLargeCode = "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
const unexpectedResponse = /Unexpected server response: (\d{3})/

/** What a platform error event says, when it says anything (Node's `ws` does, browsers do not). */
const eventDetail = (cause: unknown): { readonly message?: string; readonly code?: string } => {
  const event = cause as {
    readonly message?: unknown
    readonly error?: { readonly message?: unknown; readonly code?: unknown }
  }
  const message = typeof event?.message === "string" && event.message !== "" ?
    event.message :
    typeof event?.error?.message === "string" ?
    event.error.message :
    undefined
  const code = typeof event?.error?.code === "string" ? event.error.code : undefined
  return { ...(message !== undefined ? { message } : {}), ...(code !== undefined ? { code } : {}) }
}

/** @internal */
export const tooLarge = (config: Config): McpError.TransportError =>
  new McpError.TransportError({
    reason: "Read",
    phase: "message-size",
    message: `${config.description}: the server sent a message larger than the limit of ${config.maxMessageBytes} bytes`
  })

const socketError = (config: Config, error: Socket.SocketError, opened: boolean): McpError.TransportError => {
  if (error.reason === "Close") return CloseCodes.closedError(config.description, error.code, error.closeReason ?? "")
  if (error.reason === "OpenTimeout") {
    return new McpError.TransportError({
      reason: "Connect",
      phase: "open",
      message: `${config.description}: the WebSocket did not open within ${Duration.format(config.openTimeout)}`
    })
  }
  if (error.reason === "Write") {
    return new McpError.TransportError({
      reason: "Write",
      phase: "write",
      message: `${config.description}: cannot send`
    })
  }
  const detail = eventDetail(error.cause)
  if (detail.code === tooLargeCode) return tooLarge(config)
  if (!opened) {
    const status = detail.message === undefined ? undefined : unexpectedResponse.exec(detail.message)?.[1]
    const subprotocolRefused = detail.message !== undefined && /subprotocol/i.test(detail.message)
    return new McpError.TransportError({
      reason: "Connect",
      phase: subprotocolRefused ? "subprotocol" : "open",
      message: `${config.description}: cannot open the WebSocket` +
        (detail.message === undefined ? "" : ` (${detail.message})`),
      ...(status !== undefined ? { status: Number(status) } : {})
    })
  }
  return new McpError.TransportError({
    reason: "Read",
    phase: "read",
    message: `${config.description}: the connection broke` +
      (detail.message === undefined ? "" : ` (${detail.message})`)
  })
}

/**
 * Opens one WebSocket (subprotocol `mcp`) and returns it as a connection:
 * one JSON-RPC message per text frame each way. The socket closes (code
 * 1000) when the scope closes.
 *
 * @internal
 */
export const connect = (
  config: Config
): Effect.Effect<McpTransport.Connection, McpError.TransportError, Socket.WebSocketConstructor | Scope.Scope> =>
  Effect.gen(function*() {
    const construct = yield* Socket.WebSocketConstructor
    // the platform socket hides its WebSocket; keep it to read the protocol, the buffered amount, and to close with a code
    let ws: globalThis.WebSocket | undefined
    const keep = (url: string, protocols?: string | Array<string>) => {
      ws = construct(url, protocols)
      return ws
    }
    const socket = yield* Socket.makeWebSocket(config.url, {
      protocols: [subprotocol],
      openTimeout: config.openTimeout,
      // every close ends the connection with its code
      closeCodeIsError: () => true
    })

    // browsers let a client send only 1000 and 3000-4999: the precise code where the platform allows it
    const closeWith = (code: number, reason: string) => {
      const short = reason.length > 120 ? `${reason.slice(0, 117)}...` : reason
      try {
        ws?.close(code, short)
      } catch {
        ws?.close(1000, short)
      }
    }
    const inbound = McpTransport.makeInboundBuffer(config.incomingCapacity)
    const opened = Deferred.unsafeMake<void, McpError.TransportError>(FiberId.none)
    let isOpen = false
    let ended: McpError.TransportError | undefined
    // completes when the connection ends, to wake senders
    const gone = Deferred.unsafeMake<void>(FiberId.none)
    const end = (error: McpError.TransportError, closeCode?: number) => {
      if (ended !== undefined) return
      ended = error
      inbound.end(error)
      Deferred.unsafeDone(opened, Effect.fail(error))
      Deferred.unsafeDone(gone, Effect.void)
      if (closeCode !== undefined) closeWith(closeCode, error.message)
    }

    const onFrame = (data: string | Uint8Array): void => {
      if (ended !== undefined) return
      if (typeof data !== "string") {
        inbound.offerNow([
          JsonRpc.malformed(
            "Envelope",
            `a binary frame of ${data.byteLength} bytes: MCP over WebSocket sends one JSON-RPC message per text frame`
          )
        ])
        return
      }
      // string length is a lower bound of the UTF-8 size; only measure when it can matter
      if (data.length * 3 > config.maxMessageBytes && JsonRpc.byteLength(data) > config.maxMessageBytes) {
        return end(tooLarge(config), 1009)
      }
      if (!inbound.offerNow(JsonRpc.decode(data, config.maxMessageBytes))) {
        end(
          new McpError.TransportError({
            reason: "Read",
            phase: "incoming",
            message: `${config.description}: more than ${config.incomingCapacity} messages waited for a reader`
          }),
          1008
        )
      }
    }

    yield* socket.runRaw(onFrame, {
      onOpen: Effect.sync(() => {
        isOpen = true
        Deferred.unsafeDone(opened, Effect.void)
      })
    }).pipe(
      // a platform that throws (a constructor refusing the URL) is a failed open, never a defect
      Effect.catchAllDefect((defect) =>
        Effect.fail(new Socket.SocketGenericError({ reason: isOpen ? "Read" : "Open", cause: defect }))
      ),
      Effect.matchCause({
        onFailure: (cause) => {
          const failure = Cause.failureOption(cause)
          end(
            failure._tag === "Some" ?
              socketError(config, failure.value, isOpen) :
              new McpError.TransportError({
                reason: isOpen ? "Closed" : "Connect",
                phase: isOpen ? "close" : "open",
                message: `${config.description}: the socket stopped`
              })
          )
        },
        onSuccess: () => end(CloseCodes.closedError(config.description, 1000, ""))
      }),
      // the socket is built when it runs, from the runner's context
      Effect.provideService(Socket.WebSocketConstructor, keep),
      Effect.forkScoped
    )

    yield* Deferred.await(opened)
    if (ws !== undefined && ws.protocol !== subprotocol) {
      const refused = new McpError.TransportError({
        reason: "Connect",
        phase: "subprotocol",
        message: `${config.description}: the server accepted the WebSocket with ` +
          (ws.protocol === "" ? "no subprotocol" : `subprotocol ${JSON.stringify(ws.protocol)}`) +
          `, not "${subprotocol}"`
      })
      end(refused, 1002)
      return yield* Effect.fail(refused)
    }

    const write = yield* socket.writer
    const goneError = Effect.suspend(() =>
      Effect.fail(
        new McpError.TransportError({
          reason: "Write",
          phase: "write",
          message: `${config.description}: cannot send, the connection is gone` +
            (ended === undefined ? "" : ` (${ended.message})`)
        })
      )
    )
    // the platform buffers sends without a bound: wait while more than maxBufferedBytes wait for the network
    const drained: Effect.Effect<void> = Effect.suspend(() =>
      ended === undefined && ws !== undefined && ws.bufferedAmount > config.maxBufferedBytes ?
        Effect.zipRight(Effect.sleep(drainPollMillis), drained) :
        Effect.void
    )
    const send = (message: JsonRpc.Message): Effect.Effect<void, McpError.TransportError> =>
      Effect.suspend(() => {
        if (ended !== undefined) return goneError
        let text: string
        try {
          text = JsonRpc.encode(message)
        } catch (error) {
          return Effect.fail(
            new McpError.TransportError({
              reason: "Write",
              phase: "encode",
              message: `${config.description}: the message cannot be written as JSON`,
              cause: error
            })
          )
        }
        const written = write(text).pipe(Effect.mapError((error) => socketError(config, error, true)))
        return drained.pipe(
          Effect.zipRight(Effect.suspend(() => ended !== undefined ? goneError : written)),
          // a closed socket's writer waits for it to reopen: the connection's end is the answer
          Effect.raceFirst(Effect.zipRight(Deferred.await(gone), goneError))
        )
      })

    return {
      inbound,
      send,
      description: config.description,
      networkTransport: "tcp"
    }
  })
