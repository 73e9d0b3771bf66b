import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientExtensions from "../ClientExtensions.js"
import * as Elicitation from "../Elicitation.js"
import * as McpError from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import * as Roots from "../Roots.js"
import * as Sampling from "../Sampling.js"
import { decoder } from "./engine/decode.js"
import type * as SessionModel from "./engine/sessionModel.js"
import * as Codecs from "./era/codecs.js"
import { checkElicitResult, validatorFromContext } from "./policy/validation.js"

const decodeCreateMessage = decoder(McpSchema.CreateMessageRequestParams)
const decodeElicit = decoder(McpSchema.ElicitRequestParams)

const invalidParams = (method: string, message: string) =>
  new McpError.ProtocolError({ code: McpError.ErrorCode.InvalidParams, method, message })

/**
 * What the `Sampling`, `Elicitation` and `Roots` services in the context
 * add to a session: handlers, the capabilities they advertise, and (for
 * `Roots`) a task telling the server when the roots change.
 *
 * @internal
 */
export interface FromContext {
  readonly handlers: Record<string, SessionModel.ServerRequestHandler>
  readonly capabilities: McpSchema.ClientCapabilities
  readonly announceRoots: (session: SessionModel.Service) => Effect.Effect<void, never, Scope.Scope>
}

/** @internal */
export const fromContext: Effect.Effect<FromContext> = Effect.gen(function*() {
  const sampling = yield* Effect.serviceOption(Sampling.Sampling)
  const elicitation = yield* Effect.serviceOption(Elicitation.Elicitation)
  const roots = yield* Effect.serviceOption(Roots.Roots)
  const extensions = yield* Effect.serviceOption(ClientExtensions.ClientExtensions)
  const validator = yield* validatorFromContext

  const handlers: Record<string, SessionModel.ServerRequestHandler> = {}
  const capabilities: Record<string, unknown> = {}
  if (Option.isSome(sampling)) {
    const service = sampling.value
    capabilities.sampling = Sampling.capability(service)
    handlers["sampling/createMessage"] = (params) =>
      decodeCreateMessage(params).pipe(
        Effect.mapError((e) => invalidParams("sampling/createMessage", e.message)),
        Effect.flatMap(service.createMessage)
      )
  }
  if (Option.isSome(elicitation)) {
    const service = elicitation.value
    capabilities.elicitation = Elicitation.capability(service)
    handlers["elicitation/create"] = (params) =>
      decodeElicit(params).pipe(
        Effect.mapError((e) => invalidParams("elicitation/create", e.message)),
        Effect.filterOrFail(
          (p) => service.modes.includes(p.mode === "url" ? "url" : "form"),
          (p) => invalidParams("elicitation/create", `this client does not support ${p.mode} elicitation`)
        ),
        Effect.flatMap((p) => Effect.flatMap(service.elicit(p), (result) => checkElicitResult(validator, p, result)))
      )
  }
  if (Option.isSome(roots)) {
    capabilities.roots = { listChanged: true }
    handlers["roots/list"] = () => Effect.map(roots.value.list, (list) => ({ roots: list }))
  }
  if (Option.isSome(extensions) && Object.keys(extensions.value).length > 0) {
    capabilities.extensions = { ...extensions.value }
  }
  return {
    handlers,
    capabilities: capabilities as McpSchema.ClientCapabilities,
    announceRoots: (session) =>
      Option.isNone(roots) ? Effect.void : roots.value.changes.pipe(
        Stream.runForEach(() =>
          Effect.ignore(Effect.flatMap(session.initialized, (init) =>
            // 2026-07-28 has no such notification: the roots are asked for again when the server needs them
            Codecs.of(init.protocolVersion).rootsListChanged
              ? session.notify("notifications/roots/list_changed")
              : Effect.void))
        ),
        Effect.forkScoped,
        Effect.asVoid
      )
  }
})
