/**
 * When a tool call may run without asking, when it must be asked about, and
 * when it is refused. With this service in the context of `McpClient.make`
 * / `McpClient.layer`, every `callTool` and `callToolStream` is checked
 * before anything is sent; a refusal fails with `McpError.ApprovalDenied` and
 * the server never receives the call.
 *
 * | rule, first that applies | `auto` | `trusted-only` | `always-ask` |
 * |---|---|---|---|
 * | tool on the server's `deny` list | denied | denied | denied |
 * | tool on the server's `allow` list | runs | runs | runs |
 * | tool approved "always" before by the same origin, definition unchanged (stored) | runs | runs | runs |
 * | server trusted | runs | runs | asks |
 * | otherwise | runs | asks | asks |
 *
 * Tool annotations never decide: they only become the request's warnings.
 *
 * An "approve always" decision covers the calls of the origin that was
 * asked about (`ApprovalRequest.origin`, from `ToolCallLog.currentOrigin`):
 * the model's (and the host's) own calls, or the calls of one MCP App, by
 * its exact `ui://` URI. A tool approved always for the model's use is
 * asked about again when an app's UI calls it, and the reverse. Decisions
 * stored before origins were (no `origin`) cover the model's own calls only.
 *
 * @since 0.2.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as ApprovalRequest from "./ApprovalRequest.js"
import * as keyValueStore from "./internal/platform/keyValueStore.js"
import * as internal from "./internal/policy/approvalPolicy.js"
import type * as ToolCallLog from "./ToolCallLog.js"

/**
 * `auto`: no confirmation; `always-ask`: every call is asked about (unless
 * the tool is allowed or was approved "always"); `trusted-only`: calls to
 * trusted servers and allowed tools run, the others are asked about.
 *
 * @since 0.2.0
 * @category models
 */
export type Mode = "auto" | "always-ask" | "trusted-only"

/**
 * Tool names allowed to run without asking, or refused outright.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolRules {
  readonly allow?: ReadonlyArray<string> | undefined
  readonly deny?: ReadonlyArray<string> | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly mode: Mode
  /** Servers trusted by name (as well as clients made with `trusted: true`). */
  readonly trustedServers?: ReadonlyArray<string> | undefined
  /** Allow / deny lists by server name; the key `"*"` applies to every server. */
  readonly tools?: { readonly [server: string]: ToolRules } | undefined
  /** Key prefix of the remembered "approve always" decisions. Default `"mcp-effect/approvals/"`. */
  readonly prefix?: string | undefined
}

/**
 * What the policy says about a call before anyone is asked.
 *
 * @since 0.2.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Allow"; readonly reason: "Auto" | "AllowList" | "Remembered" | "TrustedServer" }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Ask" }

/**
 * A remembered "approve always" decision, as stored: `definition` is the
 * approved tool's title, description, schemas and annotations as canonical
 * JSON; `origin` the app whose calls it covers (absent: the model's own
 * calls, as every decision stored before 0.5.0).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Remembered: Schema.Schema<internal.Remembered, internal.RememberedEncoded> = internal.Remembered

/**
 * @since 0.2.0
 * @category models
 */
export type Remembered = internal.Remembered

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly options: Options
  /**
   * Builds what the policy and the `Approver` are shown of a call
   * (`ApprovalRequest.make`): the client asks the policy for it, so a client
   * without a policy bundles none of its code.
   *
   * @internal
   */
  readonly request: (
    options: Omit<ApprovalRequest.ApprovalRequest, "warnings" | "listed" | "exactOrigin">
  ) => ApprovalRequest.ApprovalRequest
  /** Whether the policy trusts this server by name. */
  readonly trusts: (server: string) => boolean
  readonly evaluate: (request: ApprovalRequest.ApprovalRequest) => Effect.Effect<Verdict>
  /**
   * Stores an "approve always" decision for the request's tool on its
   * server, with the tool's definition: if the server later changes the
   * tool's title, description, schemas or annotations, it is asked about
   * again. The decision covers the request's origin only (the model's own
   * calls, or the one app that asked).
   */
  readonly remember: (request: ApprovalRequest.ApprovalRequest) => Effect.Effect<void>
  /**
   * Forgets the "approve always" decision of `origin` (default: the
   * model's own calls, as `ToolCallLog.currentOrigin`'s `undefined`) for
   * the tool: its calls are asked about again. Other origins' decisions for
   * the tool stay: forget each app's with its origin (a `ToolCallLog`
   * record's `origin`, or `{ _tag: "App", uri }`).
   */
  readonly forget: (server: string, tool: string, origin?: ToolCallLog.Origin | undefined) => Effect.Effect<void>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class ApprovalPolicy extends Context.Tag("@mcp-effect/core/ApprovalPolicy")<ApprovalPolicy, Service>() {}

/**
 * A policy whose "approve always" decisions are kept in the `KeyValueStore`
 * (schema-encoded). A store that fails is logged and treated as holding no
 * decision: the call is asked about again, never run unasked.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<Service, never, KeyValueStore.KeyValueStore> = internal.make

/**
 * The policy as a Layer, remembering "approve always" decisions in the
 * `KeyValueStore` it is given. Provide it (with an `Approver`) to the client.
 *
 * @example
 * ```ts
 * import { NodeKeyValueStore } from "@effect/platform-node"
 * import { ApprovalDecision, ApprovalPolicy, Approver, McpClient } from "@mcp-effect/core"
 * import { Effect, Layer } from "effect"
 *
 * const Policy = ApprovalPolicy.layer({
 *   mode: "trusted-only",
 *   trustedServers: ["filesystem"],
 *   tools: { "*": { deny: ["delete_everything"] } }
 * }).pipe(Layer.provide(NodeKeyValueStore.layerFileSystem(".approvals")))
 *
 * // how this app asks a person; here: approve once, without asking
 * const AskNobody = Approver.layer(() => Effect.succeed(ApprovalDecision.approveOnce))
 *
 * export const Client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(Layer.merge(Policy, AskNobody))
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<ApprovalPolicy, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(ApprovalPolicy, make(options))

/**
 * A policy that remembers "approve always" decisions in memory only.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory = (options: Options): Layer.Layer<ApprovalPolicy> =>
  Layer.provide(layer(options), keyValueStore.layerMemory)
