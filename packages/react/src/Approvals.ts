/**
 * Tool-call approval from the UI: `Approvals.layer` is the core `Approver`
 * whose questions wait in a list that `usePendingApprovals` renders (the
 * confirmation dialog). The client asks only when its `ApprovalPolicy` says
 * so (`always-ask`, or `trusted-only` for an untrusted server); a call
 * interrupted while it waits leaves the list on its own. A `useToolCall`
 * whose call waits here has the status `"AwaitingApproval"`.
 *
 * @since 0.2.0
 */
import * as ApprovalDecision from "@mcp-effect/core/ApprovalDecision"
import type * as ApprovalRequest from "@mcp-effect/core/ApprovalRequest"
import * as Approver from "@mcp-effect/core/Approver"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import type * as Subscribable from "effect/Subscribable"
import { approvalWatch } from "./internal/approvalWatch.js"
import * as pending from "./internal/pending.js"
import { useSubscribable } from "./Live.js"
import { useService, valueOf } from "./RuntimeProvider.js"

/**
 * A tool call waiting for the user's decision. `request.warnings` are the
 * tool's annotation warnings (destructive, open-world) to show in the dialog.
 *
 * @since 0.2.0
 * @category models
 */
export interface PendingApproval {
  readonly id: number
  readonly request: ApprovalRequest.ApprovalRequest
  /**
   * Who asked, when it was not the host itself: `"the app of <server>"` for
   * a call an MCP App's UI made (its URI is `request.origin.uri`); `undefined`
   * for the host's and the model's own calls.
   *
   * @since 0.4.0
   */
  readonly askedBy: string | undefined
  /** Run this call. */
  readonly approveOnce: () => void
  /** Run this call and, while the tool's definition stays the same, every later one. */
  readonly approveAlways: () => void
  /** Refuse: the call fails with `ApprovalDenied` and nothing is sent to the server. */
  readonly deny: (reason?: string) => void
}

/**
 * @since 0.2.0
 * @category tags
 */
export class ApprovalRequests extends Context.Tag("@mcp-effect/react/ApprovalRequests")<
  ApprovalRequests,
  {
    readonly pending: Subscribable.Subscribable<
      ReadonlyArray<pending.Pending<ApprovalRequest.ApprovalRequest, ApprovalDecision.ApprovalDecision>>
    >
  }
>() {}

/**
 * The `Approver` service backed by the UI. Provide it where the clients are
 * made (to `McpClient.layer`, or around `BrowserHub.layer`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (): Layer.Layer<Approver.Approver | ApprovalRequests> =>
  Layer.effectContext(Effect.map(
    pending.make<ApprovalRequest.ApprovalRequest, ApprovalDecision.ApprovalDecision>(),
    (queue) =>
      Context.make(ApprovalRequests, { pending: queue.pending }).pipe(
        Context.add(Approver.Approver, {
          // a `useToolCall` run waiting here shows "AwaitingApproval"
          ask: (request) =>
            Effect.flatMap(FiberRef.get(approvalWatch), (watch) =>
              watch === undefined ? queue.ask(request) : Effect.sync(() => watch(true)).pipe(
                Effect.zipRight(queue.ask(request)),
                Effect.ensuring(Effect.sync(() =>
                  watch(false)
                ))
              ))
        })
      )
  ))

/**
 * Who asked for the call, in words for a dialog: `"the app of <server>"`
 * when an MCP App's UI made it (`request.origin`), else `undefined`.
 *
 * @since 0.4.0
 * @category utils
 */
export const askedBy = (request: ApprovalRequest.ApprovalRequest): string | undefined =>
  request.origin?._tag === "App" ? `the app of ${request.server}` : undefined

const none: ReadonlyArray<never> = []

/**
 * The tool calls waiting for approval, oldest first.
 *
 * @since 0.2.0
 * @category hooks
 */
export const usePendingApprovals = (): ReadonlyArray<PendingApproval> => {
  const service = valueOf(useService(ApprovalRequests))
  const list = useSubscribable(service?.pending, none)
  return list.map(({ answer, id, request }) => ({
    id,
    request,
    askedBy: askedBy(request),
    approveOnce: () => answer(ApprovalDecision.approveOnce),
    approveAlways: () => answer(ApprovalDecision.approveAlways),
    deny: (reason) => answer(ApprovalDecision.deny(reason))
  }))
}
