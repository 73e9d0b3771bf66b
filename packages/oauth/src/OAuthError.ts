/**
 * The error of every OAuth step: discovery, the URL guard, registration,
 * the authorization and token requests, the interactive step. Never
 * contains a token, a secret or an authorization code.
 *
 * The `HttpAuth` hook turns it into `McpError.Unauthorized` (with
 * `reauthorize: true` when the user must authorize again); the flows'
 * own entry points (`OAuthClient`, the authorizers) fail with it directly.
 *
 * @since 0.1.0
 */
import { McpError } from "@mcp-effect/core"
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
 * - `Interaction`: the interactive step failed or timed out
 * - `Configuration`: the options cannot work (a missing key, an unknown algorithm)
 * - `Http`: a request could not be made
 * - `Store`: the `TokenStore` failed
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
  "Store"
)

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

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
  status: Schema.optional(Schema.Number)
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
