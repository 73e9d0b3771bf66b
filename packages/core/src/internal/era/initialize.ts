/**
 * The 2025 era's handshake: `initialize` with the offered version, a check
 * that the server chose a version this client speaks, the transport
 * hand-off, then `notifications/initialized`. The 2026-07-28 era opens with
 * `server/discover` instead (`discover.ts`).
 */
import * as Effect from "effect/Effect"
import * as McpError from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import { checker } from "../engine/decode.js"
import type * as SessionModel from "../engine/sessionModel.js"
import type { Codec2025 } from "./codec.js"
import { handOff } from "./codecs.js"
import { supportedOf } from "./negotiation.js"

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
 * The 2025 handshake: `initialize` with the offered version, a check that
 * the server chose a version this client speaks, the transport hand-off,
 * then `notifications/initialized`.
 *
 * @internal
 */
export const initialize: Codec2025["initialize"] = (options) => ({
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
      Effect.flatMap((raw): Effect.Effect<SessionModel.Initialized, McpError.McpClientError> => {
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
        return Effect.succeed<SessionModel.Initialized>({
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
