import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as ClientSession from "../../ClientSession.js"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import type { Connection } from "../../McpTransport.js"
import { checker } from "../engine/decode.js"
import * as Codecs from "../era/codecs.js"
import { supportedOf } from "../era/negotiation.js"
import { type Decorate, type Route, sendNotification } from "./pending.js"

/**
 * What a handshake may use of the connection it opens: requests bound to
 * that connection (they go through the pending table, with its timeouts),
 * notifications, and the transport's hand-off for the negotiated version.
 *
 * @internal
 */
export interface HandshakeContext {
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options: ClientSession.RequestOptions
  ) => Effect.Effect<unknown, McpError.McpClientError>
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void, McpError.McpClientError>
  readonly connection: Connection
  /** The generation of the connection, for `Initialized`. */
  readonly generation: number
}

/**
 * One protocol era's way to open a connection: it returns what the server
 * and the client agreed on. A handshake must call `connection.negotiated`
 * (when set) as soon as the version is fixed, before anything else is sent.
 *
 * @internal
 */
export interface Handshake {
  readonly run: (context: HandshakeContext) => Effect.Effect<ClientSession.Initialized, McpError.McpClientError>
  /** The era's per-request params decoration (2026-07-28: `_meta` on every request); none for 2025. */
  readonly decorate?: Decorate | undefined
}

const decodeInitializeResult = checker(McpSchema.InitializeResult)

/** A server that refuses the offered version says which it supports: the message names them. */
const explainRefusedVersion = (offered: string) => (error: McpError.McpClientError): McpError.McpClientError => {
  if (error._tag !== "ProtocolError" || error.code !== McpError.ErrorCode.UnsupportedProtocolVersion) return error
  const versions = supportedOf(error)
  return new McpError.ProtocolError({
    ...error,
    message: `${error.message}: this client offered ${offered}` +
      (versions.length > 0 ? `, the server supports ${versions.join(", ")}` : "")
  })
}

/**
 * Tells the transport the negotiated version, with the era and cancel style
 * of its codec (`McpTransport.Connection.negotiated`).
 *
 * @internal
 */
export const handOff = (connection: Connection, protocolVersion: string): Effect.Effect<void> =>
  connection.negotiated === undefined ? Effect.void : connection.negotiated(Codecs.handed(protocolVersion))

/**
 * The 2025 handshake: `initialize` with the offered version, a check that
 * the server chose a version this client speaks, the transport hand-off,
 * then `notifications/initialized`.
 *
 * @internal
 */
export const initialize = (options: {
  readonly protocolVersion: string
  readonly capabilities: McpSchema.ClientCapabilities
  readonly clientInfo: McpSchema.Implementation
  readonly timeout: Duration.DurationInput
}): Handshake => ({
  run: (context) =>
    context.request(
      "initialize",
      {
        protocolVersion: options.protocolVersion,
        capabilities: options.capabilities,
        clientInfo: options.clientInfo
      },
      { timeout: options.timeout, replay: false, resetTimeoutOnProgress: false }
    ).pipe(
      Effect.mapError(explainRefusedVersion(options.protocolVersion)),
      Effect.flatMap((raw): Effect.Effect<ClientSession.Initialized, McpError.McpClientError> => {
        const decoded = decodeInitializeResult(raw)
        if (decoded._tag === "Left") {
          return Effect.fail(
            new McpError.DecodeError({
              reason: "Schema",
              method: "initialize",
              message: `invalid initialize result: ${decoded.left}`
            })
          )
        }
        const result = decoded.right
        if (!(McpSchema.SUPPORTED_PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(result.protocolVersion)) {
          return Effect.fail(
            new McpError.ProtocolError({
              code: McpError.ErrorCode.InvalidParams,
              method: "initialize",
              message:
                `the server chose protocol version ${result.protocolVersion}, which this client does not speak ` +
                `(supported: ${McpSchema.SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`
            })
          )
        }
        return Effect.succeed<ClientSession.Initialized>({
          protocolVersion: result.protocolVersion,
          serverInfo: result.serverInfo,
          capabilities: result.capabilities,
          instructions: result.instructions,
          generation: context.generation
        })
      }),
      Effect.tap((initialized) => handOff(context.connection, initialized.protocolVersion)),
      Effect.tap(() => context.notify("notifications/initialized"))
    )
})

/** @internal */
export const notifyOn = (connection: Connection, route: Route) => (method: string, params?: Record<string, unknown>) =>
  sendNotification(connection, route, method, params)
