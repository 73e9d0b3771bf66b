/**
 * The 2026-07-28 era's codec: every request but `initialize` carries the
 * `_meta` envelope (version, client info, capabilities, log level); a
 * result may ask for input (`inputRounds.ts`) or be a task handle
 * (`taskHandles.ts`); subscriptions go through one `subscriptions/listen`
 * (`listen.ts`); there is no `ping`, so the liveness check is
 * `server/discover`, which a server answers at any time.
 */
import * as Effect from "effect/Effect"
import * as McpSchema from "../../McpSchema.js"
import * as Methods from "../methods.js"
import { standardHeaders } from "../wire/mcpHeaders.js"
import { type Codec2026, TypeId } from "./codec.js"
import * as Discover from "./discover.js"
import * as InputRounds from "./inputRounds.js"
import * as Listen from "./listen.js"
import { withModernMeta } from "./meta.js"
import * as TaskHandles from "./taskHandles.js"

const kindOf = (raw: unknown): unknown =>
  typeof raw === "object" && raw !== null ? (raw as { resultType?: unknown }).resultType : undefined

/** @internal */
export const codec: Codec2026 = {
  [TypeId]: TypeId,
  era: "modern",
  versions: McpSchema.MODERN_PROTOCOL_VERSIONS,
  exists: (method) => Methods.existsIn(method, "modern"),
  decorate: (method, params, envelope) =>
    Methods.lookup(method)?.handshake === true ?
      params :
      withModernMeta(params, envelope.version, envelope.identity, envelope.logLevel),
  sendOptions: (method, params, envelope) =>
    envelope === undefined ? undefined : {
      protocolVersion: envelope.version,
      headers: (envelope.headersFor ?? standardHeaders)(method, params),
      kind: method === Listen.method ? "listen" : undefined
    },
  classify: (method, raw) => {
    const kind = kindOf(raw)
    const row = Methods.lookup(method)
    return kind === "input_required" && row?.inputRounds === true ?
      "input_required" :
      kind === "task" && row?.taskHandle === true ?
      "task" :
      "complete"
  },
  follow: (method, params, first, requestOptions, context) => {
    const task = (raw: unknown) =>
      Methods.lookup(method)?.taskHandle === true ?
        TaskHandles.follow(method, raw, context.request, context.handlers, context.polling) :
        Effect.succeed(raw)
    // each round is a request of its own; its last answer may still be a task handle
    return InputRounds.isInputRequired(first) ?
      Effect.flatMap(
        InputRounds.run(
          method,
          first,
          (answers) => context.request(method, InputRounds.withAnswers(params, answers), requestOptions),
          context.handlers,
          params
        ),
        task
      ) :
      task(first)
  },
  cancel: "stream",
  subscriptions: "listen",
  logLevel: "meta",
  tasks: "server",
  resultRounds: true,
  rootsListChanged: false,
  ping: { method: "server/discover", params: {} },
  discover: Discover.discover,
  listener: Listen.make
}
