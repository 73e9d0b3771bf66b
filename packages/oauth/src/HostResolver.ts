/**
 * How the `UrlPolicy` learns the addresses behind a host name. With a
 * resolver in the context, the OAuth flows check every address a host name
 * resolves to before they fetch from it, so a public-looking name pointing
 * at `127.0.0.1`, a private network or a cloud metadata address is refused
 * like the literal address would be. `UrlPolicy`'s `resolveHostNames: false`
 * turns the check off.
 *
 * Browsers cannot resolve names, so the browser keeps the literal check.
 * On Node, provide `NodeHostResolver.layer` (import
 * `@mcp-effect/oauth/NodeHostResolver`).
 *
 * The check is made before the request, and the request resolves the name
 * again: a name whose answer changes between the two (DNS rebinding) is not
 * caught. It narrows the door; a network-level egress policy closes it.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { OAuthError } from "./OAuthError.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Every address (IPv4 dotted quad or IPv6) `hostname` resolves to; fails when it does not resolve. */
  readonly lookup: (hostname: string) => Effect.Effect<ReadonlyArray<string>, OAuthError>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class HostResolver extends Context.Tag("@mcp-effect/oauth/HostResolver")<HostResolver, Service>() {}
