/**
 * What the person (or program) asked about a tool call decided: approve this
 * call, approve every call of this tool from now on, or deny it.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.2.0
 * @category schemas
 */
export const ApproveOnce = Schema.TaggedStruct("ApproveOnce", {})

/**
 * Approves this call and remembers the tool of this server as approved
 * (through the policy's store), so later calls of it are not asked again.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ApproveAlways = Schema.TaggedStruct("ApproveAlways", {})

/**
 * @since 0.2.0
 * @category schemas
 */
export const Deny = Schema.TaggedStruct("Deny", { reason: Schema.optional(Schema.String) })

/**
 * @since 0.2.0
 * @category schemas
 */
export const ApprovalDecision = Schema.Union(ApproveOnce, ApproveAlways, Deny)

/**
 * @since 0.2.0
 * @category models
 */
export type ApprovalDecision = typeof ApprovalDecision.Type

/**
 * @since 0.2.0
 * @category constructors
 */
export const approveOnce: ApprovalDecision = ApproveOnce.make({})

/**
 * @since 0.2.0
 * @category constructors
 */
export const approveAlways: ApprovalDecision = ApproveAlways.make({})

/**
 * @since 0.2.0
 * @category constructors
 */
export const deny = (reason?: string): ApprovalDecision => Deny.make(reason === undefined ? {} : { reason })

/**
 * @since 0.2.0
 * @category guards
 */
export const isApproved = (decision: ApprovalDecision): boolean => decision._tag !== "Deny"
