import * as FiberRef from "effect/FiberRef"

/**
 * Set by `useToolCall` on the fiber of a call: `Approvals.layer` tells it when
 * the call starts and stops waiting for the user's decision, so the hook can
 * show "AwaitingApproval" rather than "Running".
 */
export const approvalWatch: FiberRef.FiberRef<((waiting: boolean) => void) | undefined> = FiberRef.unsafeMake<
  ((waiting: boolean) => void) | undefined
>(undefined)
