/**
 * The error of every OAuth step: discovery, the URL guard, registration,
 * the authorization and token requests, the interactive step. Never
 * contains a token, a secret or an authorization code.
 *
 * The `HttpAuth` hook turns it into `McpError.Unauthorized` (with
 * `reauthorize: true` when the user must authorize again), or, when the
 * authorization server could not be reached or answered `5xx` / `429`
 * (`isTransient`), into a retryable `McpError.TransportError` carrying it
 * as `cause`; the flows' own entry points (`OAuthClient`, the authorizers)
 * fail with it directly.
 *
 * @since 0.1.0
 */
import * as McpError from "@mcp-effect/core/McpError"
import * as Schema from "effect/Schema"

/**
 * What went wrong:
 *
 * - `Discovery`: no usable protected-resource or authorization-server metadata
 * - `UnsafeUrl`: a server-supplied URL was refused by the `UrlPolicy`
 * - `ResourceMismatch`: the protected-resource metadata names another resource
 * - `PkceUnsupported`: the authorization server does not advertise `S256`
 * - `Registration`: no client identity (none configured, no CIMD, no registration)
 * - `Authorization`: the authorization response was an error, or failed its checks (`state`, `iss`)
 * - `InvalidGrant`: the grant (a refresh token, a code) was refused: the user must authorize again
 * - `Token`: any other failure of the token endpoint
 * - `Interaction`: the interactive step did not finish: `interaction` says how
 * - `Configuration`: the options cannot work (a missing key, an unknown algorithm)
 * - `Http`: a request could not be made (connection refused, DNS, an unreadable answer), or the server answered `5xx` / `429`
 * - `Store`: the `TokenStore` failed
 * - `AuthorizationServerChanged`: the resource moved to another authorization server, where the configured
 *   (pre-registered) client id is not valid (SEP-2352); since 0.2.0
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Literal(
  "Discovery",
  "UnsafeUrl",
  "ResourceMismatch",
  "PkceUnsupported",
  "Registration",
  "Authorization",
  "InvalidGrant",
  "Token",
  "Interaction",
  "Configuration",
  "Http",
  "Store",
  "AuthorizationServerChanged"
)

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * How an interactive step (`reason: "Interaction"`) ended without a callback:
 *
 * - `PopupBlocked`: the browser refused to open the sign-in window (not started from a user gesture)
 * - `PopupClosed`: the sign-in window was closed before the callback came
 * - `Cancelled`: the app cancelled the sign-in (`BrowserAuthorizer.SignIns`), e.g. the user's "Cancel sign-in"
 * - `TimedOut`: no callback came within the authorizer's `timeout`
 *
 * @since 0.2.0
 * @category models
 */
export const Interaction = Schema.Literal("PopupBlocked", "PopupClosed", "Cancelled", "TimedOut")

/**
 * @since 0.2.0
 * @category models
 */
export type Interaction = typeof Interaction.Type

/**
 * @since 0.1.0
 * @category errors
 */
export class OAuthError extends Schema.TaggedError<OAuthError>("@mcp-effect/oauth/OAuthError")("OAuthError", {
  reason: Reason,
  message: Schema.String,
  /** The OAuth error code from the server (`invalid_grant`, `access_denied`, ...), when there is one. */
  error: Schema.optional(Schema.String),
  /** The HTTP status of the failed response, when there is one. */
  status: Schema.optional(Schema.Number),
  /** With `reason: "Interaction"`: how the interactive step ended, when the authorizer knows (since 0.2.0). */
  interaction: Schema.optional(Interaction)
}) {}

/**
 * The error the transport's auth hook reports for an OAuth failure.
 * `reauthorize` is `true` when the grant was refused (`InvalidGrant`) and the
 * user has to authorize again.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toUnauthorized = (error: OAuthError): McpError.Unauthorized =>
  new McpError.Unauthorized({
    message: `OAuth ${error.reason}: ${error.message}`,
    reauthorize: error.reason === "InvalidGrant"
  })

/**
 * Whether the failure may go away by itself: the authorization server
 * could not be reached (connection refused, DNS, a broken answer) or
 * answered `5xx` / `429`. A refused grant, a refused client or any other
 * `4xx` with an OAuth error body is permanent.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isTransient = (error: OAuthError): boolean =>
  error.reason !== "InvalidGrant" &&
  (error.reason === "Http" || (error.status !== undefined && (error.status >= 500 || error.status === 429)))

/**
 * A transient failure as the transport reports it: a `TransportError`
 * (phase `auth`) the reconnect schedule retries, with the `OAuthError` as
 * `cause`.
 *
 * @since 0.2.0
 * @category conversions
 */
export const toTransportError = (error: OAuthError): McpError.TransportError =>
  new McpError.TransportError({
    reason: "Connect",
    phase: "auth",
    message: `OAuth ${error.reason}: ${error.message}`,
    ...(error.status === undefined ? {} : { status: error.status }),
    cause: error
  })

/**
 * What the transport's auth hook reports for an OAuth failure:
 * `toTransportError` when it is transient, `toUnauthorized` otherwise.
 *
 * @since 0.2.0
 * @category conversions
 */
export const toMcpError = (error: OAuthError): McpError.TransportError | McpError.Unauthorized =>
  isTransient(error) ? toTransportError(error) : toUnauthorized(error)
