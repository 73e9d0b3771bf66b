/**
 * The codecs this app's sessions were made with, by era. A session registers
 * the codecs it was given (`ProtocolEra2025.era`, `ProtocolEra2026.era`)
 * when it is made; everything that later needs the codec of a negotiated
 * version (the client, the task path, the handlers, the transport hand-off)
 * finds it here. No module here imports an era's codec: an app that makes
 * its sessions with one era never reaches the other's code.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Connection } from "../../McpTransport.js"
import type * as SessionModel from "../engine/sessionModel.js"
import type { Codec2025, Codec2026, EraCodec, Handed } from "./codec.js"
import type * as Listen from "./listen.js"
import { eraOf } from "./negotiation.js"

let legacy: Codec2025 | undefined
let modern: Codec2026 | undefined

/**
 * Remembers the codecs a session was made with (codecs are constants: the
 * first of each era is the only one).
 *
 * @internal
 */
export const register = (codecs: ReadonlyArray<EraCodec>): void => {
  for (const codec of codecs) {
    if (codec.era === "legacy") legacy ??= codec
    else modern ??= codec
  }
}

/**
 * The codec of the era `version` belongs to. Only a version a session
 * negotiated is asked for, and a session negotiates only versions of the
 * codecs it registered (`Negotiation.offerOf` offers no other), so the
 * codec is there.
 *
 * @internal
 */
export const of = (version: string): EraCodec => (eraOf(version) === "modern" ? modern : legacy)!

/**
 * What the transport is handed for `version`.
 *
 * @internal
 */
export const handed = (version: string): Handed => {
  const codec = of(version)
  return { protocolVersion: version, era: codec.era, cancel: codec.cancel }
}

/**
 * Tells the transport the negotiated version, with the era and cancel style
 * of its codec (`McpTransport.Connection.negotiated`).
 *
 * @internal
 */
export const handOff = (connection: Connection, protocolVersion: string): Effect.Effect<void> =>
  connection.negotiated === undefined ? Effect.void : connection.negotiated(handed(protocolVersion))

/**
 * The `subscriptions/listen` listener of a session of the 2026-07-28 era
 * (the only era whose `subscriptions` is `"listen"`).
 *
 * @internal
 */
export const listener = (session: () => SessionModel.Service, scope: Scope.Scope): Listen.Listener =>
  modern!.listener(session, scope)
