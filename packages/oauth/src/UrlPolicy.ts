/**
 * The SSRF guard. Every URL the OAuth flows fetch or hand to the user —
 * protected-resource and authorization-server metadata, the endpoints they
 * name, redirects — passes `check` first.
 *
 * By default only `https` URLs to public hosts pass: no loopback, private,
 * link-local, unspecified or reserved address (literal IPv4 and IPv6,
 * including IPv4-mapped forms), no `localhost`, no single-label or
 * local-only names (`.local`, `.internal`, `.home.arpa`, ...), no
 * credentials in the URL. Literal addresses are classified by the IANA
 * special-purpose registries (IPv4 and IPv6, through `ipaddr.js`): anything
 * special-purpose that is not loopback, private or link-local is refused as
 * reserved. `check` works without DNS, the same in Node and in browsers;
 * with a `HostResolver` in the context (Node: `NodeHostResolver.layer`) the
 * flows also check every address a host name resolves to (`checkAddresses`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { HostResolver } from "./HostResolver.js"
import * as Address from "./internal/address.js"
import { OAuthError } from "./OAuthError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface UrlPolicy {
  /** Allow `http:` to loopback hosts (127.0.0.0/8, ::1, localhost). Implies `allowLoopback`. Default `false`. */
  readonly allowHttpLoopback?: boolean | undefined
  /** Allow loopback hosts over `https:`. Default `false`. */
  readonly allowLoopback?: boolean | undefined
  /** Allow private and link-local networks (RFC 1918, fc00::/7, 169.254/16, fe80::/10, CGNAT, local names). Default `false`. */
  readonly allowPrivateNetworks?: boolean | undefined
  /**
   * When set, every URL's host must be one of these: an exact host name, or
   * `*.example.com` for any subdomain of `example.com`.
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** Hosts always refused (same patterns as `allowedHosts`). */
  readonly blockedHosts?: ReadonlyArray<string> | undefined
  /**
   * Check the addresses a host name resolves to, when a `HostResolver` is
   * provided (Node: `NodeHostResolver.layer`). Default `true`.
   *
   * @since 0.2.0
   */
  readonly resolveHostNames?: boolean | undefined
}

/**
 * The default: `https` to public hosts only.
 *
 * @since 0.1.0
 * @category constants
 */
export const strict: UrlPolicy = {}

/**
 * For development against servers on this machine: `http` and `https` to
 * loopback hosts, still nothing private.
 *
 * @since 0.1.0
 * @category constants
 */
export const loopbackDevelopment: UrlPolicy = { allowHttpLoopback: true }

const matches = (host: string, pattern: string): boolean => {
  const p = pattern.toLowerCase()
  return p.startsWith("*.") ? host.endsWith(p.slice(1)) && host.length > p.length - 1 : host === p
}

/**
 * Why a URL is refused, or `undefined` when it passes.
 *
 * @since 0.1.0
 * @category checks
 */
export const violation = (url: URL, policy: UrlPolicy): string | undefined => {
  if (url.protocol !== "https:" && url.protocol !== "http:") return `scheme ${url.protocol} is not allowed`
  if (url.username !== "" || url.password !== "") return "credentials in URLs are not allowed"
  const host = url.hostname.toLowerCase()
  if (policy.blockedHosts?.some((p) => matches(host, p)) === true) return `host ${host} is blocked`
  if (policy.allowedHosts !== undefined && !policy.allowedHosts.some((p) => matches(host, p))) {
    return `host ${host} is not in the allowed hosts`
  }
  return verdict(Address.classifyHost(host), `host ${host}`, url.protocol, policy)
}

const verdict = (kind: Address.HostClass, subject: string, protocol: string, policy: UrlPolicy): string | undefined => {
  switch (kind) {
    case "unspecified":
    case "reserved":
      return `${subject} is a ${kind} address`
    case "loopback":
      if (!(policy.allowLoopback === true || policy.allowHttpLoopback === true)) {
        return `${subject} is a loopback address`
      }
      if (protocol === "http:" && policy.allowHttpLoopback !== true) return "only https is allowed"
      return undefined
    case "private":
    case "link-local":
      if (policy.allowPrivateNetworks !== true) return `${subject} is a ${kind} address`
      return protocol === "https:" ? undefined : "only https is allowed"
    case "public":
      return protocol === "https:" ? undefined : "only https is allowed"
  }
}

/**
 * Why the addresses a URL's host name resolved to are refused, or
 * `undefined` when every one passes (the URL itself is expected to have
 * passed `violation`). An answer that is not an IP address is refused.
 *
 * @since 0.2.0
 * @category checks
 */
export const addressViolation = (url: URL, addresses: ReadonlyArray<string>, policy: UrlPolicy): string | undefined => {
  if (addresses.length === 0) return `host ${url.hostname} resolves to no address`
  for (const address of addresses) {
    const reason = verdict(
      Address.classifyAddress(address) ?? "reserved",
      `host ${url.hostname} (resolved to ${address})`,
      url.protocol,
      policy
    )
    if (reason !== undefined) return reason
  }
  return undefined
}

/**
 * Checks a URL that passed `check` against the addresses its host name
 * resolves to, when a `HostResolver` is provided and `resolveHostNames` is
 * not `false`; IP literals need no lookup. A name that does not resolve
 * fails with reason `Http`.
 *
 * @since 0.2.0
 * @category checks
 */
export const checkAddresses = (url: URL, policy: UrlPolicy, what: string): Effect.Effect<URL, OAuthError> =>
  Effect.gen(function*() {
    const resolver = yield* Effect.serviceOption(HostResolver)
    if (Option.isNone(resolver) || policy.resolveHostNames === false || Address.isIpLiteral(url.hostname)) return url
    const addresses = yield* resolver.value.lookup(url.hostname.replace(/\.$/, ""))
    const reason = addressViolation(url, addresses, policy)
    return reason === undefined
      ? url
      : yield* new OAuthError({ reason: "UnsafeUrl", message: `${what} ${url.origin} refused: ${reason}` })
  })

/**
 * Parses `url` and checks it against the policy. `what` names the URL in
 * the error (`"token endpoint"`, ...).
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (url: string | URL, policy: UrlPolicy, what: string): Effect.Effect<URL, OAuthError> =>
  Effect.suspend(() => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return Effect.fail(new OAuthError({ reason: "UnsafeUrl", message: `${what} is not a valid URL` }))
    }
    const reason = violation(parsed, policy)
    return reason === undefined
      ? Effect.succeed(parsed)
      : Effect.fail(new OAuthError({ reason: "UnsafeUrl", message: `${what} ${parsed.origin} refused: ${reason}` }))
  })
