/**
 * How the app asks a human (a terminal prompt, a dialog) whether a tool call
 * may run. The `ApprovalPolicy` decides when to ask; without an `Approver`
 * in the context, a call that needs asking is denied.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as ApprovalDecision from "./ApprovalDecision.js"
import type * as ApprovalRequest from "./ApprovalRequest.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Asks about one call. May take as long as the person needs: the call's
   * timeouts start only once it is approved. Interrupting it (the caller
   * gave up) sends nothing to the server.
   */
  readonly ask: (request: ApprovalRequest.ApprovalRequest) => Effect.Effect<ApprovalDecision.ApprovalDecision>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class Approver extends Context.Tag("@mcp-effect/core/Approver")<Approver, Service>() {}

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (ask: Service["ask"]): Layer.Layer<Approver> => Layer.succeed(Approver, { ask })
