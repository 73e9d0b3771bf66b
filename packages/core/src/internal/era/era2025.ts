/**
 * The 2025 era's codec (`initialize`-opened sessions, versions up to
 * 2025-11-25): requests go out as they are, every result is complete, the
 * server is told the log level and the subscriptions by requests of their
 * own.
 */
import * as Effect from "effect/Effect"
import * as McpSchema from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import * as Methods from "../methods.js"
import { type Codec2025, TypeId } from "./codec.js"
import * as Initialize from "./initialize.js"

/** What an `initialize` request is to the transport. */
const opening: McpTransport.SendOptions = { kind: "initialize" }

/** @internal */
export const codec: Codec2025 = {
  [TypeId]: TypeId,
  era: "legacy",
  versions: McpSchema.SUPPORTED_PROTOCOL_VERSIONS,
  exists: (method) => Methods.existsIn(method, "legacy"),
  decorate: (_method, params) => params,
  // only the opening is named: the version every later message goes out under is the negotiated one
  sendOptions: (method) => Methods.lookup(method)?.handshake === true ? opening : undefined,
  classify: () => "complete",
  follow: (_method, _params, first) => Effect.succeed(first),
  cancel: "notice",
  subscriptions: "subscribe",
  logLevel: "request",
  tasks: "client",
  resultRounds: false,
  rootsListChanged: true,
  ping: { method: "ping", params: undefined },
  initialize: Initialize.initialize
}
